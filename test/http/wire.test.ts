import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_TARGETS, pgEnabled, SERVICE_STORES } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const TRUSTED = 'https://portal.example.com';
const LIMIT = 16 * 1024;

type Response = Awaited<ReturnType<TestClient['request']>>;

/** Every error is RFC 9457 problem+json with the contract's members and nothing that leaks internals. */
function expectProblem(response: Response, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toEqual({
    type: 'about:blank',
    title: expect.any(String),
    status,
    code,
    detail: expect.any(String),
    request_id: response.headers.get('x-request-id'),
    ...(response.body?.errors ? { errors: response.body.errors } : {}),
  });
  expect(response.body.title.length).toBeGreaterThan(0);
  expect(response.body.detail.length).toBeGreaterThan(0);
  expect(response.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.text).not.toMatch(/\n\s+at |node_modules|\/src\/|\.ts:\d+|Error:|SELECT |INSERT /);
}

function fieldPaths(response: Response): string[] {
  return (response.body.errors as Array<{ path: string; message: string }>).map((error) => error.path).sort();
}

/** A raw HTTP/1.1 request, for bodies fetch will not send (chunked uploads). */
function rawRequest(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; chunks: Buffer[] },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = httpRequest(
      new URL(path, baseUrl),
      { method: options.method ?? 'POST', headers: options.headers ?? {} },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => {
          settled = true;
          const text = Buffer.concat(parts).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') headers.set(name, value);
          }
          let body: Response['body'];
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers, body, text, setCookies: [] });
        });
      },
    );
    req.on('error', (error) => {
      // The server may close the connection while the rest of an oversized body is still being sent.
      if (!settled) reject(error);
    });
    for (const chunk of options.chunks) req.write(chunk);
    req.end();
  });
}

// About HTTP: on both transports, not on every store; a store's outage below is on every store.
for (const store of POLICY_TARGETS) {
  describe(`wire conventions [${store}]`, () => {
    let server: TestServer;
    let client: TestClient;

    beforeAll(async () => {
      server = await startTestServer({ store, env: { TRUSTED_ORIGINS: TRUSTED } });
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      client = new TestClient(server.url);
    });
    afterAll(() => server?.close());

    const credentials = JSON.stringify({ username: 'ann', password: PASSWORD });

    it('answers 415 UNSUPPORTED_MEDIA_TYPE for text/plain and form bodies', async () => {
      const plain = await client.request('POST', '/api/v1/login/', {
        body: credentials,
        headers: { 'content-type': 'text/plain' },
      });
      expectProblem(plain, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const form = await client.request('POST', '/api/v1/login/', {
        body: `username=ann&password=${encodeURIComponent(PASSWORD)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const multipart = new FormData();
      multipart.set('username', 'ann');
      multipart.set('password', PASSWORD);
      const response = await fetch(new URL('/api/v1/login/', server.url), {
        method: 'POST',
        body: multipart,
      });
      expect(response.status).toBe(415);
      expect(response.headers.get('set-cookie')).toBeNull();
    });

    it('accepts application/json with parameters and in any case', async () => {
      for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
        const response = await new TestClient(server.url).request('POST', '/api/v1/login/', {
          body: credentials,
          headers: { 'content-type': type },
        });
        expect(response.status).toBe(200);
      }
    });

    it('answers 400 INVALID_REQUEST for malformed JSON', async () => {
      for (const body of ['{"username": "ann",', '{username: ann}', "{'a': 1}", 'nope']) {
        const response = await client.request('POST', '/api/v1/login/', {
          body,
          headers: { 'content-type': 'application/json' },
        });
        expectProblem(response, 400, 'INVALID_REQUEST');
      }
    });

    it('answers 400 INVALID_REQUEST for a body that is not valid UTF-8', async () => {
      const response = await rawRequest(server.url, '/api/v1/login/', {
        headers: { 'content-type': 'application/json' },
        chunks: [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      });
      expectProblem(response, 400, 'INVALID_REQUEST');
    });

    it('answers 400 INVALID_REQUEST for a JSON body that is not an object', async () => {
      for (const json of [[], [{ username: 'ann', password: PASSWORD }], 'ann', null, 42, true]) {
        const response = await client.request('POST', '/api/v1/login/', {
          body: JSON.stringify(json),
          headers: { 'content-type': 'application/json' },
        });
        expectProblem(response, 400, 'INVALID_REQUEST');
      }
    });

    it('answers 400 INVALID_REQUEST naming each missing or mistyped field', async () => {
      const missing = await client.post('/api/v1/login/', {});
      expectProblem(missing, 400, 'INVALID_REQUEST');
      expect(fieldPaths(missing)).toEqual(['password', 'username']);

      const mistyped = await client.post('/api/v1/login/', { username: 42, password: ['x'] });
      expectProblem(mistyped, 400, 'INVALID_REQUEST');
      expect(fieldPaths(mistyped)).toEqual(['password', 'username']);

      const empty = await client.post('/api/v1/login/', { username: '', password: PASSWORD });
      expectProblem(empty, 400, 'INVALID_REQUEST');
      expect(fieldPaths(empty)).toEqual(['username']);

      const deprecated = await client.post('/api/v1/login/', {
        username: 'ann',
        password: PASSWORD,
        provide_basic_profile: 'yes',
      });
      expectProblem(deprecated, 400, 'INVALID_REQUEST');
      expect(fieldPaths(deprecated)).toEqual(['provide_basic_profile']);
      for (const error of deprecated.body.errors) expect(typeof error.message).toBe('string');
    });

    it('accepts a body of exactly 16 KiB', async () => {
      const head = JSON.stringify({ username: 'ann', password: PASSWORD, padding: '' });
      const body = head.replace('"padding":""', `"padding":"${'x'.repeat(LIMIT - head.length)}"`);
      expect(Buffer.byteLength(body)).toBe(LIMIT);
      const response = await new TestClient(server.url).request('POST', '/api/v1/login/', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(200);
    });

    it('answers 413 PAYLOAD_TOO_LARGE for a 17 KiB body sent with Content-Length', async () => {
      const body = JSON.stringify({ username: 'ann', password: PASSWORD, padding: 'x'.repeat(17 * 1024) });
      const response = await client.request('POST', '/api/v1/login/', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('answers 413 PAYLOAD_TOO_LARGE for a 17 KiB body sent chunked', async () => {
      const body = Buffer.from(
        JSON.stringify({ username: 'ann', password: PASSWORD, padding: 'x'.repeat(17 * 1024) }),
      );
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < body.length; offset += 1024)
        chunks.push(body.subarray(offset, offset + 1024));
      const response = await rawRequest(server.url, '/api/v1/login/', {
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks,
      });
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('accepts a small chunked body', async () => {
      const response = await rawRequest(server.url, '/api/v1/login/', {
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks: [Buffer.from(credentials.slice(0, 10)), Buffer.from(credentials.slice(10))],
      });
      expect(response.status).toBe(200);
    });

    it('answers 403 ORIGIN_REJECTED for a foreign Origin', async () => {
      for (const origin of [
        'https://evil.example',
        'null',
        `${TRUSTED}.evil.example`,
        'http://portal.example.com',
      ]) {
        const response = await client.post(
          '/api/v1/login/',
          { username: 'ann', password: PASSWORD },
          { origin },
        );
        expectProblem(response, 403, 'ORIGIN_REJECTED');
        expect(response.setCookies).toEqual([]);
      }
      const logout = await client.post('/api/v1/logout/', {}, { origin: 'https://evil.example' });
      expectProblem(logout, 403, 'ORIGIN_REJECTED');
    });

    it('answers 403 ORIGIN_REJECTED for Sec-Fetch-Site: cross-site without a trusted Origin', async () => {
      const response = await client.post(
        '/api/v1/login/',
        { username: 'ann', password: PASSWORD },
        { 'sec-fetch-site': 'cross-site' },
      );
      expectProblem(response, 403, 'ORIGIN_REJECTED');
    });

    it('accepts the service’s own origin, a trusted origin, and same-site fetches', async () => {
      const headerSets: Array<Record<string, string>> = [
        { origin: server.url },
        { origin: TRUSTED },
        { origin: TRUSTED, 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'none' },
      ];
      for (const headers of headerSets) {
        const response = await new TestClient(server.url).post(
          '/api/v1/login/',
          { username: 'ann', password: PASSWORD },
          headers,
        );
        expect(response.status, JSON.stringify(headers)).toBe(200);
      }
    });

    it('does not check the origin of safe requests', async () => {
      const response = await client.get('/healthz', {
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      });
      expect(response.status).toBe(200);
    });

    it('answers 404 NOT_FOUND as problem+json', async () => {
      for (const path of ['/api/v1/nothing-here/', '/api/v2/login/', '/nothing', '/']) {
        expectProblem(await client.get(path), 404, 'NOT_FOUND');
      }
      expectProblem(await client.post('/api/v1/nothing-here/', {}), 404, 'NOT_FOUND');
    });

    it('answers 405 METHOD_NOT_ALLOWED as problem+json, with Allow', async () => {
      const wrongMethods: Array<[string, string, string]> = [
        ['GET', '/api/v1/login/', 'POST'],
        ['PUT', '/api/v1/login/', 'POST'],
        ['DELETE', '/api/v1/session/', 'GET'],
        ['POST', '/api/v1/session/', 'GET'],
        ['GET', '/api/v1/logout/', 'POST'],
        ['GET', '/api/v1/password/', 'POST'],
      ];
      for (const [method, path, allowed] of wrongMethods) {
        const response = await client.request(
          method,
          path,
          method === 'GET' || method === 'DELETE' ? {} : { json: {} },
        );
        expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
        expect(response.headers.get('allow') ?? '', `${method} ${path}`).toContain(allowed);
      }
    });

    it('sets no-store and nosniff on every answer, errors included', async () => {
      for (const response of [await client.get('/healthz'), await client.get('/api/v1/session/')]) {
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });

    it('answers /healthz and /readyz with 200', async () => {
      const health = await client.get('/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
      const ready = await client.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', session_store: store === 'memory' ? 'memory' : 'sql' });
    });
  });
}

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`store unavailable [${store}]`, () => {
    let server: TestServer;
    let token: string;

    beforeAll(async () => {
      server = await startTestServer({ store });
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
      token = client.session!;
      await server.sql.close();
    });
    afterAll(() => server?.close());

    function expectUnavailable(response: Response): void {
      expectProblem(response, 503, 'SERVICE_UNAVAILABLE');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    it('answers 503 SERVICE_UNAVAILABLE with Retry-After on login', async () => {
      const response = await new TestClient(server.url).post('/api/v1/login/', {
        username: 'ann',
        password: PASSWORD,
      });
      expectUnavailable(response);
      expect(response.setCookies).toEqual([]);
    });

    it('answers 503 on the session, the password change and the logout', async () => {
      const cookie = { cookie: `sessionid=${token}` };
      expectUnavailable(await new TestClient(server.url).get('/api/v1/session/', cookie));
      expectUnavailable(
        await new TestClient(server.url).post(
          '/api/v1/password/',
          { old_password: PASSWORD, new_password: 'a brand new passphrase' },
          cookie,
        ),
      );
      expectUnavailable(await new TestClient(server.url).post('/api/v1/logout/', {}, cookie));
    });

    it('answers /readyz with 503 and Retry-After, /healthz still 200', async () => {
      const ready = await new TestClient(server.url).get('/readyz');
      expect(ready.status).toBe(503);
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await new TestClient(server.url).get('/healthz')).status).toBe(200);
    });
  });
}
