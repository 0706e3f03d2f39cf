/**
 * A product team's own service in each framework Gatehouse has a guard for, protecting two routes
 * with it: `GET /api/v1/things` (a live session with unexpired credentials) and
 * `POST /api/v1/things/ack` (an expired-credential session allowed, as for a password change),
 * and the step-up page of docs/adopting.md, `GET /api/v1/billing` (`requireMfa` and
 * `maxAuthAgeS: 300`: a second factor in the last five minutes).
 * Each handler answers who it saw; `reached` counts the handlers run.
 */
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import type { ServiceGatehouse as Gatehouse } from '../../src/boot/gatehouse.js';
import { gatehouseSession as expressSession } from '../../src/guards/express.js';
import { gatehouseSession as fastifySession } from '../../src/guards/fastify.js';
import { type GatehouseState, gatehouseSession as koaSession } from '../../src/guards/koa.js';

/** The billing page's step-up: a second factor, in the last five minutes. */
export const BILLING = { requireMfa: true, maxAuthAgeS: 300 } as const;

export type ProductFramework = 'koa' | 'express' | 'fastify';
export const PRODUCT_FRAMEWORKS: readonly ProductFramework[] = ['koa', 'express', 'fastify'];

export interface ProductApp {
  url: string;
  reached(): number;
  close(): Promise<void>;
}

/**
 * `GET /api/v1/things` answers with the guard's user object exactly as the guard left it (so a
 * stored field on it would show); `POST /api/v1/things/ack` with the username.
 */
export async function startProductApp(
  framework: ProductFramework,
  gatehouse: Gatehouse,
): Promise<ProductApp> {
  let reached = 0;
  const seen = <T>(value: T): T => {
    reached += 1;
    return value;
  };
  let running: RunningServer | null = null;
  if (framework === 'koa') {
    const app = new Koa<GatehouseState>();
    const router = new Router<GatehouseState>();
    router.get('/api/v1/things', koaSession({ gatehouse }), (ctx) => {
      ctx.body = seen(ctx.state.gatehouse);
    });
    router.post('/api/v1/things/ack', koaSession({ gatehouse, allowExpiredCredentials: true }), (ctx) => {
      ctx.body = { username: seen(ctx.state.gatehouse?.username) };
    });
    router.get('/api/v1/billing', koaSession({ gatehouse, ...BILLING }), (ctx) => {
      ctx.body = seen(ctx.state.gatehouse);
    });
    app.use(router.routes());
    running = await listen(app, 0, '127.0.0.1');
  } else if (framework === 'express') {
    const app = express();
    app.get('/api/v1/things', expressSession({ gatehouse }), (req, res) => {
      res.json(seen(req.gatehouse));
    });
    app.post(
      '/api/v1/things/ack',
      expressSession({ gatehouse, allowExpiredCredentials: true }),
      (req, res) => {
        res.json({ username: seen(req.gatehouse?.username) });
      },
    );
    app.get('/api/v1/billing', expressSession({ gatehouse, ...BILLING }), (req, res) => {
      res.json(seen(req.gatehouse));
    });
    running = await listen({ callback: () => app }, 0, '127.0.0.1');
  } else {
    const app = Fastify();
    // Each guard in its own scope, covering the routes registered after it there.
    await app.register(async (scope) => {
      await scope.register(fastifySession, { gatehouse });
      scope.get('/api/v1/things', async (request) => seen(request.gatehouse));
    });
    await app.register(async (scope) => {
      await scope.register(fastifySession, { gatehouse, allowExpiredCredentials: true });
      scope.post('/api/v1/things/ack', async (request) => ({ username: seen(request.gatehouse?.username) }));
    });
    await app.register(async (scope) => {
      await scope.register(fastifySession, { gatehouse, ...BILLING });
      scope.get('/api/v1/billing', async (request) => seen(request.gatehouse));
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url, reached: () => reached, close: () => app.close() };
  }
  const server = running;
  return { url: server.url, reached: () => reached, close: () => server.close(1000) };
}
