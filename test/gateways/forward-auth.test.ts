/**
 * Contract 4a end to end: real nginx (`auth_request`) and real Caddy (`forward_auth`) in front of
 * an application, asking Gatehouse about every request. The application echoes the identity
 * headers it received; a client forges them, with and without a session.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../security/support.js';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { type Gateway, type GatewayKind, IDENTITY_HEADERS, startGateway } from '../support/gateways.js';
import { ANN, FRESH, PASSWORD, ZOE } from '../support/identity-users.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const GATEWAYS: readonly GatewayKind[] = ['nginx', 'caddy'];

/** What a CGI, WSGI, Rack or PHP application reads for a header: `HTTP_` and the name upper-cased, `-` as `_`. */
const environKey = (name: string) => `HTTP_${name.toUpperCase().replaceAll('-', '_')}`;

/** Every header as a CGI-style application reads it, each key with every value it got. */
function environOf(request: IncomingMessage): Record<string, string[]> {
  const environ: Record<string, string[]> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const key = environKey(request.rawHeaders[i]!);
    environ[key] = [...(environ[key] ?? []), request.rawHeaders[i + 1]!];
  }
  return environ;
}

/**
 * The application behind the gateway: answers with every header it received, both by name as
 * sent and as a CGI-style application reads it (`environ`, every value of a key: two headers
 * that read alike both show), and the identity headers under their own names (`seen`).
 */
async function startEchoApp(): Promise<{ url: string; reached: () => number; close: () => Promise<void> }> {
  let reached = 0;
  const server: Server = createServer((request, response) => {
    reached += 1;
    const seen: Record<string, string> = {};
    for (const header of IDENTITY_HEADERS) {
      const value = request.headers[header.toLowerCase()];
      if (value !== undefined) seen[header] = String(value);
    }
    const headers: Record<string, string[]> = {};
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const [name, value] = [request.rawHeaders[i]!, request.rawHeaders[i + 1]!];
      headers[name] = [...(headers[name] ?? []), value];
    }
    const environ = environOf(request);
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ path: request.url, method: request.method, seen, headers, environ }));
  });
  // An upgrade (a WebSocket handshake) is accepted, and what the application read is sent after it.
  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    reached += 1;
    socket.end(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${request.headers.upgrade}\r\nConnection: Upgrade\r\n\r\n${JSON.stringify(environOf(request))}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    reached: () => reached,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The `HTTP_GATEHOUSE_*` keys an application would read, each with every value it got. */
function gatehouseEnviron(environ: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(environ).filter(([key]) => key.startsWith('HTTP_GATEHOUSE_')));
}

/**
 * The longest identity there is: a username of 200 non-ASCII characters (1.8 KB percent-encoded)
 * and ids of 200 four-byte characters (2.4 KB each), over 9 KB of headers in the check's answer.
 */
const LONG_NAME = '€'.repeat(200);
const LONG_ID = '😀'.repeat(200);
const LONG_GROUP = '😁'.repeat(200);

/** What an application reads for ann, whatever the client forged: her identity, once each. */
const ANN_ENVIRON = {
  HTTP_GATEHOUSE_USER_ID: ['u-ann'],
  HTTP_GATEHOUSE_USERNAME: ['ann'],
  HTTP_GATEHOUSE_USER_LEVEL: ['0'],
  HTTP_GATEHOUSE_TENANT_ID: ['t1'],
  HTTP_GATEHOUSE_GROUP_ID: ['g1'],
  HTTP_GATEHOUSE_AUTH_METHODS: ['pwd'],
  HTTP_GATEHOUSE_AUTH_TIME: [expect.stringMatching(/^\d+$/)],
};

/** How and when a password login's session was made (contract 3b), as the application gets it. */
const PWD_AUTH = {
  'Gatehouse-Auth-Methods': 'pwd',
  'Gatehouse-Auth-Time': expect.stringMatching(/^\d+$/),
};

const FORGED = {
  'Gatehouse-User-Id': 'u-admin',
  'Gatehouse-Username': 'admin',
  'Gatehouse-User-Level': '16',
  'Gatehouse-Tenant-Id': 'other-tenant',
  'Gatehouse-Group-Id': 'other-group',
  'Gatehouse-Auth-Methods': 'pwd,otp,mfa',
  'Gatehouse-Auth-Time': '9999999999',
};

for (const target of TRANSPORT_TARGETS) {
  for (const kind of GATEWAYS) {
    describe(`forward auth through ${kind} [${target}]`, () => {
      let gatehouse: TestServer;
      let app: Awaited<ReturnType<typeof startEchoApp>>;
      let gateway: Gateway;
      let gatehouseClosed = false;

      beforeAll(async () => {
        gatehouse = await startTestServer({ store: target });
        await seedUser(gatehouse, ANN);
        await seedUser(gatehouse, ZOE);
        await seedUser(gatehouse, FRESH);
        await seedUser(gatehouse, {
          username: LONG_NAME,
          password: PASSWORD,
          userId: LONG_ID,
          tenantId: LONG_ID,
          groupId: LONG_GROUP,
        });
        app = await startEchoApp();
        gateway = await startGateway(kind, gatehouse.url, app.url);
      });
      afterAll(async () => {
        await gateway?.close();
        await app?.close();
        if (!gatehouseClosed) await gatehouse?.close();
      });

      /** A session cookie from a real login on Gatehouse. */
      async function sessionOf(username: string): Promise<string> {
        const client = new TestClient(gatehouse.url);
        expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
        return `sessionid=${client.session}`;
      }

      const viaGateway = (headers: Record<string, string>) =>
        new TestClient(gateway.url).get('/orders/42', headers);

      it('passes a request with a live session on, with who it is', async () => {
        const response = await viaGateway({ cookie: await sessionOf('ann') });
        expect(response.status).toBe(200);
        expect(response.body.path).toBe('/orders/42');
        expect(response.body.seen).toEqual({
          'Gatehouse-User-Id': 'u-ann',
          'Gatehouse-Username': 'ann',
          'Gatehouse-User-Level': '0',
          'Gatehouse-Tenant-Id': 't1',
          'Gatehouse-Group-Id': 'g1',
          ...PWD_AUTH,
        });
      });

      it('stops a request without a session (401), the application never sees it', async () => {
        const before = app.reached();
        const response = await viaGateway({});
        expect(response.status).toBe(401);
        expect(app.reached()).toBe(before);
      });

      it('stops forged identity headers without a session', async () => {
        const before = app.reached();
        const response = await viaGateway(FORGED);
        expect(response.status).toBe(401);
        expect(app.reached()).toBe(before);
      });

      it('replaces forged identity headers with the session’s, and drops those the user has not', async () => {
        const ann = await viaGateway({ ...FORGED, cookie: await sessionOf('ann') });
        expect(ann.status).toBe(200);
        expect(ann.body.seen).toEqual({
          'Gatehouse-User-Id': 'u-ann',
          'Gatehouse-Username': 'ann',
          'Gatehouse-User-Level': '0',
          'Gatehouse-Tenant-Id': 't1',
          'Gatehouse-Group-Id': 'g1',
          ...PWD_AUTH,
        });
        // zoë has no tenant and no group: the forged ones must not reach the application.
        const zoe = await viaGateway({ ...FORGED, cookie: await sessionOf('zoë') });
        expect(zoe.status).toBe(200);
        expect(zoe.body.seen).toEqual({
          'Gatehouse-User-Id': 'u-zoe',
          'Gatehouse-Username': 'zo%C3%AB',
          'Gatehouse-User-Level': '0',
          ...PWD_AUTH,
        });
      });

      /** Through the gateway with headers exactly as written: any spelling, Connection included. */
      const rawViaGateway = (headers: Record<string, string>, method = 'GET') =>
        send(gateway.url, '/orders/42', { method, headers });

      it('strips every spelling of a forged identity header an application could read as Gatehouse-*', async () => {
        const forgeries = {
          Gatehouse_User_Level: '16',
          'gAtEhOuSe-UsEr-LeVeL': '16',
          GATEHOUSE_USER_ID: 'u-admin',
          'gatehouse-username': 'admin',
          Gatehouse_Tenant_Id: 'other-tenant',
          'GATEHOUSE-GROUP-ID': 'other-group',
          Gatehouse_Auth_Methods: 'pwd,otp',
          'gatehouse-auth-time': '9999999999',
        };
        const ann = await rawViaGateway({ ...forgeries, cookie: await sessionOf('ann') });
        expect(ann.status).toBe(200);
        expect(gatehouseEnviron(ann.body.environ)).toEqual(ANN_ENVIRON);
        // zoë has no tenant and no group: no spelling of a forged one reaches the application.
        const zoe = await rawViaGateway({ ...forgeries, cookie: await sessionOf('zoë') });
        expect(zoe.status).toBe(200);
        expect(gatehouseEnviron(zoe.body.environ)).toEqual({
          HTTP_GATEHOUSE_USER_ID: ['u-zoe'],
          HTTP_GATEHOUSE_USERNAME: ['zo%C3%AB'],
          HTTP_GATEHOUSE_USER_LEVEL: ['0'],
          HTTP_GATEHOUSE_AUTH_METHODS: ['pwd'],
          HTTP_GATEHOUSE_AUTH_TIME: [expect.stringMatching(/^\d+$/)],
        });
      });

      it('defuses a Connection header naming the identity headers', async () => {
        const response = await rawViaGateway({
          Connection: 'Gatehouse-User-Id, Gatehouse-User-Level, Gatehouse-Username, Gatehouse-Tenant-Id',
          Gatehouse_User_Id: 'u-admin',
          Gatehouse_User_Level: '16',
          cookie: await sessionOf('ann'),
        });
        expect(response.status).toBe(200);
        expect(gatehouseEnviron(response.body.environ)).toEqual(ANN_ENVIRON);
      });

      // nginx's recipe does not pass upgrades on (it sends `Connection: ""` upstream); Caddy's does.
      if (kind === 'caddy')
        it('keeps a WebSocket upgrade working and its Connection header harmless', async () => {
          const cookie = await sessionOf('ann');
          const environ = await new Promise<Record<string, string[]>>((resolve, reject) => {
            const url = new URL(gateway.url);
            const outgoing = httpRequest({
              hostname: url.hostname,
              port: url.port,
              path: '/socket',
              headers: {
                Connection: 'Upgrade, Gatehouse-User-Id, Gatehouse-User-Level',
                Upgrade: 'websocket',
                Gatehouse_User_Level: '16',
                cookie,
              },
            });
            outgoing.on('upgrade', (_response, socket, head) => {
              const chunks: Buffer[] = [head];
              socket.on('data', (chunk: Buffer) => chunks.push(chunk));
              socket.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
              socket.on('error', reject);
            });
            outgoing.on('response', (response) => reject(new Error(`no upgrade: ${response.statusCode}`)));
            outgoing.on('error', reject);
            outgoing.end();
          });
          expect(gatehouseEnviron(environ)).toEqual(ANN_ENVIRON);
          expect(environ.HTTP_UPGRADE).toEqual(['websocket']);
        });

      it('refuses an unsafe request from a foreign origin or a cross-site fetch (403), the application never sees it', async () => {
        const cookie = await sessionOf('ann');
        const before = app.reached();
        const crossSite: Array<Record<string, string>> = [
          { origin: 'https://evil.example' },
          { 'sec-fetch-site': 'cross-site' },
        ];
        for (const headers of crossSite) {
          for (const method of ['POST', 'DELETE']) {
            const response = await rawViaGateway({ ...headers, cookie }, method);
            expect(response.status).toBe(403);
          }
        }
        expect(app.reached()).toBe(before);
        // The application's own origin, and a read from anywhere, pass as on the service's routes.
        const own = await rawViaGateway(
          { origin: gateway.url, 'sec-fetch-site': 'same-origin', cookie },
          'POST',
        );
        expect(own.status).toBe(200);
        expect(own.body.method).toBe('POST');
        expect((await rawViaGateway({ origin: 'https://evil.example', cookie })).status).toBe(200);
      });

      it('stops a request without a session whatever its method, OPTIONS included (401)', async () => {
        const before = app.reached();
        for (const method of ['OPTIONS', 'POST']) {
          expect((await rawViaGateway({}, method)).status).toBe(401);
        }
        expect(app.reached()).toBe(before);
      });

      it('passes the longest non-ASCII username and long ids on whole', async () => {
        const response = await viaGateway({ cookie: await sessionOf(LONG_NAME) });
        expect(response.status).toBe(200);
        expect(response.body.seen).toEqual({
          'Gatehouse-User-Id': encodeURIComponent(LONG_ID),
          'Gatehouse-Username': encodeURIComponent(LONG_NAME),
          'Gatehouse-User-Level': '0',
          'Gatehouse-Tenant-Id': encodeURIComponent(LONG_ID),
          'Gatehouse-Group-Id': encodeURIComponent(LONG_GROUP),
          ...PWD_AUTH,
        });
      });

      it('stops a session whose password expired (403)', async () => {
        const before = app.reached();
        expect((await viaGateway({ cookie: await sessionOf('fresh') })).status).toBe(403);
        expect(app.reached()).toBe(before);
      });

      it('stops a session once it is logged out', async () => {
        const cookie = await sessionOf('ann');
        expect((await viaGateway({ cookie })).status).toBe(200);
        const logout = await new TestClient(gatehouse.url).post('/api/v1/logout/', {}, { cookie });
        expect(logout.status).toBe(200);
        expect((await viaGateway({ cookie })).status).toBe(401);
      });

      it('answers 503 with Retry-After once Gatehouse is gone, the application never sees it', async () => {
        const cookie = await sessionOf('ann');
        await gatehouse.close();
        gatehouseClosed = true;
        const before = app.reached();
        const response = await viaGateway({ cookie });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(app.reached()).toBe(before);
      });
    });
  }
}
