/**
 * The OpenAPI document is built from the route table (src/adapters/http/routes/openapi-routes.ts):
 * every route the service serves is documented under its own method and path, with what its
 * declaration says of the session and the body, and nothing is documented that no route serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, openApiPath } from '../../src/adapters/http/openapi/document.js';
import { isGuarded, type Route, refusesExpiredCredentials } from '../../src/adapters/http/route.js';
import { startTestServer, TestClient, type TestServer } from '../support/test-server.js';

// biome-ignore lint/suspicious/noExplicitAny: the document as served, read field by field
type Json = Record<string, any>;

describe('the OpenAPI document and the route table', () => {
  let server: TestServer;
  let routes: readonly Route[];
  let document: Json;

  beforeAll(async () => {
    // /metrics on the main port: the table then holds every route the service has.
    server = await startTestServer({ store: 'pglite', env: { METRICS_ON_MAIN_PORT: 'true' } });
    routes = server.gatehouse.app.routes;
    document = (await new TestClient(server.url).get('/api/v1/openapi.json')).body;
  });
  afterAll(() => server?.close());

  it('documents every route of the table under its method and path, as it declares it', () => {
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, name).toBeDefined();
      expect(operation.operationId, name).toBe(route.openapi.operationId);
      expect(operation.summary, name).toBe(route.openapi.summary);
      expect(Object.keys(operation.responses), name).toEqual(
        expect.arrayContaining(route.openapi.responses.map((response) => String(response.status))),
      );
      // The session rule: the guard's refusals and the security requirement follow it.
      const codes = Object.values(operation.responses as Json).flatMap(
        (response) => response.content?.['application/problem+json']?.schema.properties.code.enum ?? [],
      );
      expect(codes.includes('NOT_AUTHENTICATED'), name).toBe(isGuarded(route.session));
      expect(codes.includes('MFA_REQUIRED'), name).toBe(isGuarded(route.session));
      expect(codes.includes('PASSWORD_EXPIRED'), name).toBe(refusesExpiredCredentials(route.session));
      expect(operation.security, name).toEqual(
        {
          live: [{ sessionCookie: [] }],
          'live-expired-allowed': [{ sessionCookie: [] }],
          'pending-second-factor': [{ sessionCookie: [] }],
          'live-or-enrolment': [{ sessionCookie: [] }],
          optional: [{}, { sessionCookie: [] }],
          none: [],
        }[route.session],
      );
      // The body: documented exactly when the route declares one, in its media type.
      expect(operation.requestBody !== undefined, name).toBe(route.request !== undefined);
      if (route.request) {
        expect(Object.keys(operation.requestBody.content), name).toEqual([
          route.request.mediaType ?? 'application/json',
        ]);
        expect(operation.requestBody.required, name).toBe(!route.request.optional);
      }
    }
  });

  it('documents nothing that no route of the table serves, and each operation once', () => {
    const served = new Set(routes.map((route) => `${route.method} ${openApiPath(route.path)}`));
    const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const operation of documented) expect(served, operation).toContain(operation);
    expect(documented).toHaveLength(served.size);
    expect(served.size).toBe(routes.length);
    const ids = documented.map((operation) => {
      const [method, path] = operation.split(' ') as [string, string];
      return document.paths[path][method.toLowerCase()].operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('leaves out a route the table does not hold, and refuses one route twice', () => {
    const login = routes.find((route) => route.path === '/api/v1/login/')!;
    const without = buildOpenApiDocument({
      routes: routes.filter((route) => route !== login),
      cookieName: 'sessionid',
      version: '0.0.0',
    }) as Json;
    expect(without.paths['/api/v1/login/']).toBeUndefined();
    expect(() =>
      buildOpenApiDocument({ routes: [...routes, login], cookieName: 'sessionid', version: '0.0.0' }),
    ).toThrow('OpenAPI: POST /api/v1/login/ twice');
  });
});
