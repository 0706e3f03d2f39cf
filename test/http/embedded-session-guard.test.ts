import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/composition/tokens.js';
import { type GatehouseState, sessionGuard } from '../../src/index.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const PORTAL = 'https://portal.example.com';

// Issue 11, finding 11: the guard a product team mounts on its own routes has no Gatehouse origin
// check in front of it, so it refuses cross-site state changes itself.
describe('the exported sessionGuard in a product team’s Koa app', () => {
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

    const app = new Koa<GatehouseState>();
    const router = new Router<GatehouseState>();
    const guard = sessionGuard(gatehouse.gatehouse.container.get(TOKENS.SessionAuthenticator), {
      cookieName: 'sessionid',
      trustedOrigins: [PORTAL],
    });
    router.get('/orders', guard, (ctx) => {
      ctx.body = { user: ctx.state.gatehouse!.user.username };
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
