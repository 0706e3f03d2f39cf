import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { openTestStore, TRANSPORT_TARGETS } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
// What a client sent itself (first), then what two proxies appended: a CDN saw 203.0.113.7, the
// load balancer in front of the service saw the CDN at 198.51.100.2.
const FORWARDED = '6.6.6.6, 203.0.113.7, 198.51.100.2';

// Issue 11, finding 4: behind several proxies every client would share the edge's address (one
// throttle budget for everyone); TRUST_PROXY takes the number of proxies in front.
for (const target of TRANSPORT_TARGETS) {
  describe(`TRUST_PROXY: the client address behind N proxies [${target}]`, () => {
    let sql: SqlClient;
    const servers: TestServer[] = [];

    beforeAll(async () => {
      sql = await openTestStore('pglite');
    });
    afterAll(async () => {
      for (const server of servers) await server.close();
    });

    async function addressSeenWith(trustProxy: string | undefined): Promise<string | undefined> {
      const server = await startTestServer({
        store: target,
        sqlClient: sql,
        env: trustProxy ? { TRUST_PROXY: trustProxy } : {},
      });
      servers.push(server);
      if (servers.length === 1) {
        await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      }
      const client = new TestClient(server.url);
      const login = await client.post(
        '/api/v1/login/',
        { username: 'ann', password: PASSWORD },
        {
          'x-forwarded-for': FORWARDED,
        },
      );
      expect(login.status).toBe(200);
      const listed = await client.get('/api/v1/sessions/');
      expect(listed.status).toBe(200);
      const current = listed.body.sessions.find((session: { current: boolean }) => session.current);
      return current.client_address;
    }

    it('uses the socket’s address by default, the rightmost entry with true, the Nth from the right with N', async () => {
      expect(await addressSeenWith(undefined)).toMatch(/127\.0\.0\.1/);
      expect(await addressSeenWith('true')).toBe('198.51.100.2');
      expect(await addressSeenWith('1')).toBe('198.51.100.2');
      expect(await addressSeenWith('2')).toBe('203.0.113.7');
      // Never the entry the client wrote itself unless that many proxies were declared.
      expect(await addressSeenWith('3')).toBe('6.6.6.6');
    });
  });
}

// One reading of X-Forwarded-Proto and -Host on both transports, the X-Forwarded-For rule: the entry
// TRUST_PROXY places from the right. Koa took the leftmost (the client's own) and Fastify the
// rightmost, so the same request passed the Origin check on one and was refused on the other.
for (const target of TRANSPORT_TARGETS) {
  describe(`TRUST_PROXY: the origin behind N proxies, for the Origin check [${target}]`, () => {
    const servers: Record<string, TestServer> = {};

    beforeAll(async () => {
      for (const trustProxy of ['0', '1', '2'])
        servers[trustProxy] = await startTestServer({ store: target, env: { TRUST_PROXY: trustProxy } });
    });
    afterAll(async () => {
      for (const server of Object.values(servers)) await server.close();
    });

    /** A logout (unsafe, answered 200 without a session) from `origin`, as proxies forwarded it. */
    async function logoutStatus(trustProxy: string, origin: string): Promise<number> {
      const response = await new TestClient(servers[trustProxy]!.url).post(
        '/api/v1/logout/',
        {},
        {
          origin,
          // What the client sent itself, then what each proxy appended.
          'x-forwarded-proto': 'http, https, http',
          'x-forwarded-host': 'evil.example, app.example, internal.lb',
        },
      );
      return response.status;
    }

    it('believes the entry TRUST_PROXY places from the right, never the client’s own', async () => {
      expect(await logoutStatus('1', 'http://internal.lb')).toBe(200);
      expect(await logoutStatus('1', 'http://evil.example')).toBe(403);
      expect(await logoutStatus('2', 'https://app.example')).toBe(200);
      expect(await logoutStatus('2', 'http://evil.example')).toBe(403);
      expect(await logoutStatus('2', 'http://internal.lb')).toBe(403);
    });

    it('ignores X-Forwarded-* without TRUST_PROXY: the origin is the Host the socket was sent', async () => {
      const server = servers['0']!;
      expect(await logoutStatus('0', 'https://app.example')).toBe(403);
      expect(await logoutStatus('0', new URL(server.url).origin)).toBe(200);
    });
  });
}
