/**
 * One routing rule on both transports (route.ts): a path names a route only when it is the route's
 * path byte for byte. Koa's router ignored case and Fastify's decoded percent-escapes, so a gateway
 * rule that guards `/metrics` did not cover `/METRICS` or `/%6Detrics`, which still reached it.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface RawAnswer {
  status: number;
  contentType: string;
  code: string | undefined;
}

/** A request with its target sent exactly as written (fetch would resolve `//x` and `/./x`). */
function raw(server: TestServer, method: string, target: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, method, path: target }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        const contentType = response.headers['content-type'] ?? '';
        const code = contentType.startsWith('application/problem+json')
          ? (JSON.parse(text) as { code?: string }).code
          : undefined;
        resolve({ status: response.statusCode ?? 0, contentType, code });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

const NOT_FOUND = { status: 404, code: 'NOT_FOUND' };

for (const target of TRANSPORT_TARGETS) {
  describe(`one routing rule: exact, case-sensitive, undecoded paths [${target}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store: target, env: { METRICS_ON_MAIN_PORT: 'true' } });
    });
    afterAll(() => server?.close());

    const answer = async (method: string, path: string) => {
      const { status, code } = await raw(server, method, path);
      return { status, code };
    };

    it('serves the paths of the route table as written', async () => {
      expect((await answer('GET', '/metrics')).status).toBe(200);
      expect((await answer('GET', '/healthz')).status).toBe(200);
      expect(await answer('GET', '/api/v1/session/check/')).toEqual({
        status: 401,
        code: 'NOT_AUTHENTICATED',
      });
      // Contract 1: an API path without its trailing slash is the same resource.
      expect(await answer('GET', '/api/v1/session/check')).toEqual({
        status: 401,
        code: 'NOT_AUTHENTICATED',
      });
      expect(await answer('GET', '/api/v1/session/check/?x=1')).toEqual({
        status: 401,
        code: 'NOT_AUTHENTICATED',
      });
    });

    it('answers 404 problem+json for another case, a percent-escape or a doubled slash', async () => {
      for (const path of [
        '/METRICS',
        '/Metrics',
        '/%6Detrics',
        '/%6detrics',
        '//metrics',
        '/metrics/',
        '/HEALTHZ',
        '/API/v1/session/check/',
        '/api/V1/session/check/',
        '/api/v1/%73ession/check/',
        '/api/v1/session%2Fcheck/',
        '/api//v1/session/check/',
        '/api/v1/session//check/',
        '/api/v1/openapi.JSON',
      ]) {
        const got = await raw(server, 'GET', path);
        expect({ status: got.status, code: got.code }, path).toEqual(NOT_FOUND);
        expect(got.contentType, path).toMatch(/^application\/problem\+json/);
      }
    });

    it('answers 404, not 405 or 204, for other methods on such a path', async () => {
      expect(await answer('POST', '/API/v1/login/')).toEqual(NOT_FOUND);
      expect(await answer('POST', '/api/v1/LOGIN/')).toEqual(NOT_FOUND);
      expect(await answer('DELETE', '/%6Detrics')).toEqual(NOT_FOUND);
      expect(await answer('OPTIONS', '/METRICS')).toEqual(NOT_FOUND);
      // The path itself still gets its 405 with Allow.
      expect(await answer('DELETE', '/metrics')).toEqual({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    });
  });
}
