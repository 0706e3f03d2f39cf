import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_PROCESS_STORES, pgEnabled } from '../support/databases.js';
import { expectProblem } from '../support/expect-problem.js';
import { storedSessionsAsText } from '../support/stored.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const TOKEN = '[A-Za-z0-9_-]{43}';

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

async function loggedIn(server: TestServer, username: string, cookieName = 'sessionid'): Promise<TestClient> {
  const client = new TestClient(server.url, cookieName);
  const response = await client.post('/api/v1/login/', { username, password: PASSWORD });
  expect(response.status).toBe(200);
  return client;
}

/** The client's cookie sent by hand, so a test can keep using a cookie the server meant to replace. */
function withCookie(server: TestServer, token: string, cookieName = 'sessionid') {
  return new TestClient(server.url).get('/api/v1/session/', { cookie: `${cookieName}=${token}` });
}

async function lastSeenAt(server: TestServer, token: string): Promise<number> {
  const session = await server.gatehouse.store.sessions.findByTokenHash(sha256(token));
  expect(session).not.toBeNull();
  return session!.lastSeenAt.getTime();
}

/** Whether the session store (whichever it is) still holds the session of this cookie value. */
async function stored(server: TestServer, token: string): Promise<boolean> {
  return (await server.gatehouse.store.sessions.findByTokenHash(sha256(token))) !== null;
}

for (const store of ONE_PROCESS_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`session cookie and lifetime [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store });
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, { username: 'bob', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
    });
    afterAll(() => server?.close());

    it('sets exactly sessionid=<43 base64url chars>; Path=/; Max-Age=43200; HttpOnly; Secure; SameSite=Lax', async () => {
      const client = new TestClient(server.url);
      const response = await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD });
      expect(response.status).toBe(200);
      expect(response.setCookies).toHaveLength(2);
      expect(response.setCookies[0]).toMatch(
        new RegExp(`^sessionid=${TOKEN}; Path=/; Max-Age=43200; HttpOnly; Secure; SameSite=Lax$`),
      );
      // The device proof (issue 11, finding 4): sent back to the login endpoint only, for 180 days.
      expect(response.setCookies[1]).toMatch(
        /^sessionid_device=[A-Za-z0-9_-]{22}\.\d+\.[A-Za-z0-9_-]{43}; Path=\/api\/v1\/login\/; Max-Age=15552000; HttpOnly; Secure; SameSite=Strict$/,
      );
      // 32 random bytes.
      expect(Buffer.from(client.session!, 'base64url')).toHaveLength(32);
      // Reading the session sets no cookie.
      expect((await client.get('/api/v1/session/')).setCookies).toEqual([]);
    });

    it('gives a new, different id at every login', async () => {
      const tokens = new Set<string>();
      for (let i = 0; i < 3; i++) tokens.add((await loggedIn(server, 'ann')).session!);
      expect(tokens.size).toBe(3);
    });

    it('keeps only the SHA-256 of the session id in the database', async () => {
      const client = await loggedIn(server, 'ann');
      const token = client.session!;
      const rows = await storedSessionsAsText(server);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.text).not.toContain(token);
        expect(row.id).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(rows.filter((row) => row.id === sha256(token))).toHaveLength(1);
      expect(server.rawLogs.join('\n')).not.toContain(token);
    });

    it('refuses a missing, malformed, unknown or hash-valued cookie', async () => {
      const anonymous = new TestClient(server.url);
      expectProblem(await anonymous.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
      expectProblem(await withCookie(server, 'not-a-token'), 401, 'NOT_AUTHENTICATED');
      expectProblem(await withCookie(server, 'A'.repeat(43)), 401, 'NOT_AUTHENTICATED');
      const client = await loggedIn(server, 'ann');
      // The stored hash is not a cookie (a database copy cannot be replayed).
      expectProblem(await withCookie(server, sha256(client.session!)), 401, 'NOT_AUTHENTICATED');
    });

    it('revokes a session cookie sent with a login and issues a different id (fixation)', async () => {
      const client = await loggedIn(server, 'ann');
      const before = client.session!;
      expect((await withCookie(server, before)).status).toBe(200);

      const relogin = await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD });
      expect(relogin.status).toBe(200);
      const after = client.session!;
      expect(after).not.toBe(before);
      expectProblem(await withCookie(server, before), 401, 'NOT_AUTHENTICATED');
      expect((await withCookie(server, after)).status).toBe(200);
    });

    it('revokes the presented cookie even when the login is for another user', async () => {
      const client = await loggedIn(server, 'ann');
      const annToken = client.session!;
      const relogin = await client.post('/api/v1/login/', { username: 'bob', password: PASSWORD });
      expect(relogin.status).toBe(200);
      expectProblem(await withCookie(server, annToken), 401, 'NOT_AUTHENTICATED');
      expect((await client.get('/api/v1/session/')).body.profile.username).toBe('bob');
    });

    it('logs out: 200 {}, clears the cookie, refuses the old cookie afterwards', async () => {
      const client = await loggedIn(server, 'ann');
      const token = client.session!;
      const logout = await client.post('/api/v1/logout/', {});
      expect(logout.status).toBe(200);
      expect(logout.body).toEqual({});
      expect(logout.setCookies).toHaveLength(1);
      expect(logout.setCookies[0]).toMatch(/^sessionid=; Path=\/; Max-Age=0;/);
      expect(logout.setCookies[0]).toContain('HttpOnly');
      expect(logout.setCookies[0]).toContain('Secure');
      expect(logout.setCookies[0]).toContain('SameSite=Lax');
      expectProblem(await withCookie(server, token), 401, 'NOT_AUTHENTICATED');
      expect(await stored(server, token)).toBe(false);
    });

    it('logs out idempotently: without a cookie, with an ended one, with no body at all', async () => {
      const anonymous = new TestClient(server.url);
      const first = await anonymous.post('/api/v1/logout/', {});
      expect(first.status).toBe(200);
      expect(first.body).toEqual({});
      expect(first.setCookies[0]).toMatch(/^sessionid=; .*Max-Age=0/);

      const client = await loggedIn(server, 'ann');
      const token = client.session!;
      await client.post('/api/v1/logout/', {});
      const again = await new TestClient(server.url).request('POST', '/api/v1/logout/', {
        headers: { cookie: `sessionid=${token}` },
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({});
    });

    it('logs out only the session presented, not the user’s others', async () => {
      const first = await loggedIn(server, 'bob');
      const second = await loggedIn(server, 'bob');
      await first.post('/api/v1/logout/', {});
      expect((await second.get('/api/v1/session/')).status).toBe(200);
    });

    it('ends a session idle for SESSION_IDLE_TIMEOUT_S, and slides while used', async () => {
      const client = await loggedIn(server, 'ann');
      server.clock.advanceSeconds(1799);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      server.clock.advanceSeconds(1799);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      server.clock.advanceSeconds(1800);
      expectProblem(await client.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
      // The timed-out session is deleted from the store, not merely skipped.
      expect(await stored(server, client.session!)).toBe(false);
    });

    it('ends a session at the absolute time-out however active it is', async () => {
      const client = await loggedIn(server, 'ann');
      const steps = 43_200 / 1200;
      for (let step = 1; step < steps; step++) {
        server.clock.advanceSeconds(1200);
        const response = await client.get('/api/v1/session/');
        expect(response.status, `after ${step * 20} minutes`).toBe(200);
      }
      server.clock.advanceSeconds(1200);
      expectProblem(await client.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
    });

    it('records a session presented after its time-out as session_expired, once, with the time-out', async () => {
      const ann = (await server.gatehouse.store.users.findByUsername('ann'))!;
      const expiredEvents = async () =>
        (await server.gatehouse.store.audit.listForUser(ann.userId, { limit: 1000 })).filter(
          (record) => record.event === 'session_expired',
        );
      const before = (await expiredEvents()).length;
      const idle = await loggedIn(server, 'ann');
      server.clock.advanceSeconds(1800);
      // Two requests race on the dead session: both refused, one record.
      const raced = await Promise.all([idle.get('/api/v1/session/'), idle.get('/api/v1/session/')]);
      for (const response of raced) expectProblem(response, 401, 'NOT_AUTHENTICATED');
      const active = await loggedIn(server, 'ann');
      for (let step = 0; step < 36; step++) {
        server.clock.advanceSeconds(1200);
        await active.get('/api/v1/session/');
      }
      expectProblem(await active.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
      const events = (await expiredEvents()).slice(before);
      expect(events.map((e) => [e.reason, e.actor, e.outcome, e.sessionCount, e.method, e.username])).toEqual(
        [
          ['idle_timeout', 'system', 'success', 1, 'password', 'ann'],
          ['absolute_timeout', 'system', 'success', 1, 'password', 'ann'],
        ],
      );
      expect(events.every((e) => typeof e.sessionHandle === 'string' && e.sessionHandle.length > 0)).toBe(
        true,
      );
    });

    it('writes last-seen at most once a minute', async () => {
      const client = await loggedIn(server, 'ann');
      const token = client.session!;
      const loginTime = server.clock.now().getTime();
      expect(await lastSeenAt(server, token)).toBe(loginTime);

      server.clock.advanceSeconds(30);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expect(await lastSeenAt(server, token)).toBe(loginTime);

      server.clock.advanceSeconds(31);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expect(await lastSeenAt(server, token)).toBe(loginTime + 61_000);

      server.clock.advanceSeconds(59);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expect(await lastSeenAt(server, token)).toBe(loginTime + 61_000);
    });

    it('ends the sessions of a user who is disabled', async () => {
      const user = await seedUser(server, {
        username: 'soon-gone',
        password: PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
      });
      const client = await loggedIn(server, 'soon-gone');
      await server.gatehouse.store.users.setDisabled(user.userId, true);
      expectProblem(await client.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
    });
  });

  describe.skipIf(store === 'postgres' && !pgEnabled)(`session cookie settings [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: {
          COOKIE_NAME: 'gh_session',
          COOKIE_SAMESITE: 'strict',
          COOKIE_DOMAIN: 'example.test',
          SESSION_ABSOLUTE_TIMEOUT_S: '3600',
        },
      });
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
    });
    afterAll(() => server?.close());

    it('honours COOKIE_NAME, COOKIE_SAMESITE, COOKIE_DOMAIN and the absolute time-out as Max-Age', async () => {
      const client = new TestClient(server.url, 'gh_session');
      const response = await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD });
      expect(response.status).toBe(200);
      expect(response.setCookies).toHaveLength(2);
      expect(response.setCookies[0]).toMatch(
        new RegExp(
          `^gh_session=${TOKEN}; Path=/; Max-Age=3600; Domain=example.test; HttpOnly; Secure; SameSite=Strict$`,
        ),
      );
      expect(response.setCookies[1]).toMatch(
        /^gh_session_device=\S+; Path=\/api\/v1\/login\/; .*Domain=example.test;/,
      );
      expect((await client.get('/api/v1/session/')).status).toBe(200);
    });

    it('reads the session from the configured cookie only', async () => {
      const client = await loggedIn(server, 'ann', 'gh_session');
      const token = client.session!;
      expectProblem(await withCookie(server, token, 'sessionid'), 401, 'NOT_AUTHENTICATED');
      expect((await withCookie(server, token, 'gh_session')).status).toBe(200);
    });

    it('clears the configured cookie at logout, with its domain', async () => {
      const client = await loggedIn(server, 'ann', 'gh_session');
      const logout = await client.post('/api/v1/logout/', {});
      expect(logout.status).toBe(200);
      expect(logout.setCookies).toHaveLength(1);
      expect(logout.setCookies[0]).toMatch(/^gh_session=; Path=\/; Max-Age=0;/);
      expect(logout.setCookies[0]).toContain('Domain=example.test');
      expect(logout.setCookies[0]).toContain('SameSite=Strict');
    });
  });
}
