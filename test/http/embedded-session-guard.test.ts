import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Fastify, { type FastifyInstance } from 'fastify';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatehouseSession as fastifySession } from '../../src/guards/fastify.js';
import { type GatehouseState, gatehouseSession } from '../../src/guards/koa.js';
import * as packageRoot from '../../src/index.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const PORTAL = 'https://portal.example.com';

describe('the package root', () => {
  it('exports no guard of its own: each framework’s gatehouseSession lives under its own name', () => {
    expect(Object.keys(packageRoot)).not.toContain('sessionGuard');
    expect(Object.keys(packageRoot).filter((name) => /guard|session/i.test(name))).toEqual([]);
  });
});

// The guard a product team mounts on its own routes has no Gatehouse origin check in front of it,
// so it refuses cross-site state changes itself.
describe('gatehouseSession in a product team’s Koa app', () => {
  let gatehouse: TestServer;
  let product: ReturnType<typeof Koa.prototype.listen>;
  let productUrl: string;
  let cookie: string;

  beforeAll(async () => {
    gatehouse = await startTestServer();
    await seedUser(gatehouse, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
    const client = new TestClient(gatehouse.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    cookie = `sessionid=${client.session}`;

    // As the README mounts it.
    const app = new Koa<GatehouseState>();
    const router = new Router<GatehouseState>();
    const guard = gatehouseSession({ gatehouse: gatehouse.gatehouse, trustedOrigins: [PORTAL] });
    router.get('/orders', guard, (ctx) => {
      ctx.body = { user: ctx.state.gatehouse?.username };
    });
    router.post('/orders', guard, (ctx) => {
      ctx.body = { placed: true };
    });
    app.use(router.routes());
    product = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => product.once('listening', resolve));
    productUrl = `http://127.0.0.1:${(product.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    product?.close();
    await gatehouse?.close();
  });

  const send = (method: string, headers: Record<string, string> = {}) =>
    fetch(`${productUrl}/orders`, { method, headers: { cookie, ...headers } });

  it('refuses a POST from a foreign Origin or a cross-site fetch with 403 ORIGIN_REJECTED problem+json', async () => {
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Array<
      Record<string, string>
    >) {
      const response = await send('POST', headers);
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toMatchObject({ code: 'ORIGIN_REJECTED', status: 403 });
    }
  });

  it('lets through its own origin, a trusted one, a request without Origin, and safe methods from anywhere', async () => {
    for (const headers of [
      { origin: productUrl },
      { origin: PORTAL, 'sec-fetch-site': 'cross-site' },
      {},
    ] as Array<Record<string, string>>) {
      expect((await send('POST', headers)).status).toBe(200);
    }
    const read = await send('GET', { origin: 'https://evil.example' });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ user: 'ann' });
  });

  it('still answers 401 NOT_AUTHENTICATED without a session', async () => {
    const response = await fetch(`${productUrl}/orders`, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'NOT_AUTHENTICATED' });
  });
});

// A refused request must learn nothing of the route: Fastify validates a body before a
// preHandler runs, so the guard answers in onRequest, before any body is read.
describe('gatehouseSession in a product team’s Fastify app with a validated body', () => {
  let gatehouse: TestServer;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    gatehouse = await startTestServer();
    await seedUser(gatehouse, { username: 'ann', password: PASSWORD });
    app = Fastify();
    await app.register(fastifySession, { gatehouse: gatehouse.gatehouse });
    app.post(
      '/notes',
      {
        schema: {
          body: {
            type: 'object',
            required: ['text'],
            properties: { text: { type: 'string', maxLength: 10 } },
            additionalProperties: false,
          },
        },
      },
      async (request) => ({ by: request.gatehouse?.username }),
    );
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await gatehouse?.close();
  });

  const post = (body: string, cookie?: string) =>
    new TestClient(url).request('POST', '/notes', {
      body,
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    });

  it('answers 401 before the body is parsed or validated, never the route’s 400 details', async () => {
    for (const body of [
      '{"text": 42, "secret_field": true}',
      '{"text": "far too long a note"}',
      '{not json',
    ]) {
      const response = await post(body);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 'NOT_AUTHENTICATED' });
      expect(response.text).not.toMatch(/text|secret_field|must/);
    }
  });

  it('lets a live session through to validation and the handler', async () => {
    const client = new TestClient(gatehouse.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    const cookie = `sessionid=${client.session}`;
    expect((await post('{"text": "far too long a note"}', cookie)).status).toBe(400);
    const ok = await post('{"text": "hello"}', cookie);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ by: 'ann' });
  });
});
