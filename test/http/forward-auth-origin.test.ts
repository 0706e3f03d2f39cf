/**
 * The Origin rule on the request a gateway asks about: its method (X-Forwarded-Method, or the
 * check's own for Envoy), its Origin, and its own origin from the last X-Forwarded-Proto and
 * X-Forwarded-Host values (the ones the gateway added), else the check's own. Envoy's check
 * answers 200 with an empty body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANN, PASSWORD } from '../support/identity-users.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const CHECK = '/api/v1/session/check/';
const ENVOY = '/api/v1/session/check/envoy/orders';

describe('forward auth: the Origin rule on the request asked about', () => {
  let server: TestServer;
  let cookie: string;

  beforeAll(async () => {
    server = await startTestServer();
    await seedUser(server, ANN);
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    cookie = `sessionid=${client.session}`;
  });
  afterAll(() => server?.close());

  const ask = (headers: Record<string, string>, method = 'GET', path = CHECK) =>
    new TestClient(server.url).request(method, path, { headers: { cookie, ...headers } });
  const status = async (headers: Record<string, string>, method?: string, path?: string) =>
    (await ask(headers, method, path)).status;
  const APP = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.com' };

  it('refuses a forwarded POST from a foreign origin, lets through one from the application’s own', async () => {
    const refused = await ask({ ...APP, 'x-forwarded-method': 'POST', origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'ORIGIN_REJECTED' });
    expect(refused.headers.get('gatehouse-user-id')).toBeNull();
    expect(await status({ ...APP, 'x-forwarded-method': 'POST', origin: 'https://app.example.com' })).toBe(
      204,
    );
    // The scheme counts: the application is on https.
    expect(await status({ ...APP, 'x-forwarded-method': 'POST', origin: 'http://app.example.com' })).toBe(
      403,
    );
  });

  it('asks about the method the gateway forwarded: a GET passes from anywhere', async () => {
    expect(await status({ ...APP, origin: 'https://evil.example' })).toBe(204);
    expect(await status({ ...APP, 'x-forwarded-method': 'GET', origin: 'https://evil.example' })).toBe(204);
  });

  it('answers a check sent in the original method (Traefik preserveRequestMethod) as a GET', async () => {
    const granted = await ask({}, 'POST');
    expect(granted.status).toBe(204);
    expect(granted.headers.get('gatehouse-user-id')).toBe('u-ann');
    const refused = await new TestClient(server.url).request('POST', CHECK, {});
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'NOT_AUTHENTICATED' });
  });

  it('reads the last X-Forwarded-Host and X-Forwarded-Proto values, those the gateway added', async () => {
    const appended = {
      'x-forwarded-proto': 'http, https',
      'x-forwarded-host': 'evil.example, app.example.com',
    };
    expect(
      await status({ ...appended, 'x-forwarded-method': 'POST', origin: 'https://app.example.com' }),
    ).toBe(204);
    expect(await status({ ...appended, 'x-forwarded-method': 'POST', origin: 'https://evil.example' })).toBe(
      403,
    );
    expect(await status({ ...appended, 'x-forwarded-method': 'POST', origin: 'http://evil.example' })).toBe(
      403,
    );
  });

  it('takes the check’s own scheme and host when the gateway sent none', async () => {
    const own = new URL(server.url);
    expect(
      await status({
        'x-forwarded-host': 'app.example.com',
        'x-forwarded-method': 'POST',
        origin: 'http://app.example.com',
      }),
    ).toBe(204);
    expect(await status({ 'x-forwarded-method': 'POST', origin: own.origin })).toBe(204);
    expect(await status({ 'x-forwarded-method': 'POST', origin: 'https://app.example.com' })).toBe(403);
  });

  it('answers Envoy 200 with the identity and an empty body, asking about the check’s own method', async () => {
    const granted = await ask({ ...APP, origin: 'https://app.example.com' }, 'POST', ENVOY);
    expect(granted.status).toBe(200);
    expect(granted.text).toBe('');
    expect(granted.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(granted.headers.get('gatehouse-user-id')).toBe('u-ann');
    expect(await status({ ...APP, origin: 'https://evil.example' }, 'POST', ENVOY)).toBe(403);
    // A header the client added does not change the method asked about.
    expect(
      await status({ ...APP, 'x-forwarded-method': 'POST', origin: 'https://evil.example' }, 'GET', ENVOY),
    ).toBe(200);
  });
});
