/**
 * A product team's own service in each framework Gatehouse has a guard for, protecting two routes
 * with it: `GET /api/v1/things` (a live session with unexpired credentials) and
 * `POST /api/v1/things/ack` (an expired-credential session allowed, as for a password change).
 * Each handler answers who it saw; `reached` counts the handlers run.
 */
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import type { GatehouseState } from '../../src/adapters/http/state.js';
import type { Gatehouse } from '../../src/gatehouse.js';
import { sessionGuard as expressGuard } from '../../src/guards/express.js';
import { sessionGuard as fastifyGuard, sessionPlugin as fastifyPlugin } from '../../src/guards/fastify.js';
import { sessionGuard as koaGuard } from '../../src/guards/koa.js';

export type ProductFramework = 'koa' | 'express' | 'fastify';
export const PRODUCT_FRAMEWORKS: readonly ProductFramework[] = ['koa', 'express', 'fastify'];

export interface ProductApp {
  url: string;
  reached(): number;
  close(): Promise<void>;
}

export async function startProductApp(
  framework: ProductFramework,
  gatehouse: Gatehouse,
): Promise<ProductApp> {
  let reached = 0;
  const seen = (user: { username: string; userId: string }, method: string) => {
    reached += 1;
    return { username: user.username, userId: user.userId, method };
  };
  let running: RunningServer | null = null;
  let close: () => Promise<void>;
  let url: string;
  if (framework === 'koa') {
    const app = new Koa<GatehouseState>();
    const router = new Router<GatehouseState>();
    router.get('/api/v1/things', koaGuard(gatehouse), (ctx) => {
      const { user, session } = ctx.state.gatehouse!;
      ctx.body = seen(user, session.method);
    });
    router.post('/api/v1/things/ack', koaGuard(gatehouse, { allowExpiredCredentials: true }), (ctx) => {
      ctx.body = { username: seen(ctx.state.gatehouse!.user, '').username };
    });
    app.use(router.routes());
    running = await listen(app, 0, '127.0.0.1');
  } else if (framework === 'express') {
    const app = express();
    app.get('/api/v1/things', expressGuard(gatehouse), (req, res) => {
      const { user, session } = req.gatehouse!;
      res.json(seen(user, session.method));
    });
    app.post('/api/v1/things/ack', expressGuard(gatehouse, { allowExpiredCredentials: true }), (req, res) => {
      res.json({ username: seen(req.gatehouse!.user, '').username });
    });
    running = await listen({ callback: () => app }, 0, '127.0.0.1');
  } else {
    const app = Fastify();
    // A guard on one route, as a preHandler...
    app.get('/api/v1/things', { preHandler: fastifyGuard(gatehouse) }, async (request) => {
      const { user, session } = request.gatehouse!;
      return seen(user, session.method);
    });
    // ...and as a plugin guarding every route of its scope.
    await app.register(async (scope) => {
      await scope.register(fastifyPlugin(gatehouse, { allowExpiredCredentials: true }));
      scope.post('/api/v1/things/ack', async (request) => ({
        username: seen(request.gatehouse!.user, '').username,
      }));
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    close = () => app.close();
    return { url, reached: () => reached, close };
  }
  const server = running;
  return { url: server.url, reached: () => reached, close: () => server.close(1000) };
}
