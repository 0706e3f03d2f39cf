/**
 * The caller's own sessions over HTTP (ASVS 7.5.2, 7.4.3): `GET /api/v1/sessions/`,
 * `DELETE /api/v1/sessions/{handle}/`, `POST /api/v1/sessions/revoke-others/`, on both stores,
 * every answer checked against the OpenAPI document.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ALL_SERVICE_STORES, ONE_PROCESS_STORES, pgEnabled } from '../support/databases.js';
import { OpenApiConformance } from '../support/openapi-conformance.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const LIST = '/api/v1/sessions/';
const REVOKE_OTHERS = '/api/v1/sessions/revoke-others/';

type Response = Awaited<ReturnType<TestClient['request']>>;

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

for (const store of new Set([...ALL_SERVICE_STORES, ...ONE_PROCESS_STORES])) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`own sessions over HTTP [${store}]`, () => {
    let server: TestServer;
    let conformance: OpenApiConformance;

    beforeAll(async () => {
      server = await startTestServer({ store });
      for (const username of ['ann', 'bob', 'cid', 'dee', 'eve', 'fay', 'gus']) {
        await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      }
      await seedUser(server, {
        username: 'exp',
        password: PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
        mustChangePassword: true,
      });
      conformance = await OpenApiConformance.load(server.url);
    });
    afterAll(() => server?.close());

    /** Checks the answer against the document and its status (and code). */
    function expectAnswer(method: string, path: string, response: Response, status: number, code?: string) {
      conformance.assert(method, path, response);
      expect(response.status).toBe(status);
      if (code) expect(response.body.code).toBe(code);
    }

    async function login(username: string, userAgent = 'test-agent'): Promise<TestClient> {
      const client = new TestClient(server.url);
      const response = await client.request('POST', '/api/v1/login/', {
        json: { username, password: PASSWORD },
        headers: { 'user-agent': userAgent },
      });
      expect(response.status).toBe(200);
      return client;
    }

    /** The listed sessions, as the wire has them (see OwnSession in the OpenAPI document). */
    interface Listed {
      handle: string;
      method: string;
      created_at: string;
      last_seen_at: string;
      expires_at: string;
      client_address?: string;
      user_agent?: string;
      current: boolean;
    }

    async function list(client: TestClient): Promise<Listed[]> {
      const response = await client.get(LIST);
      expectAnswer('GET', LIST, response, 200);
      return response.body.sessions;
    }

    async function alive(client: TestClient): Promise<boolean> {
      return (await client.get('/api/v1/session/')).status === 200;
    }

    it('lists the caller’s live sessions, newest first, the current one marked, by handle only', async () => {
      const laptop = await login('ann', 'Laptop/1.0');
      server.clock.advanceSeconds(5);
      const phone = await login('ann', 'Phone/2.0');
      await login('bob');

      const sessions = await list(phone);
      expect(sessions).toHaveLength(2);
      expect(sessions.map((s) => s.user_agent)).toEqual(['Phone/2.0', 'Laptop/1.0']);
      expect(sessions.map((s) => s.current)).toEqual([true, false]);
      for (const session of sessions) {
        expect(session).toEqual({
          handle: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
          method: 'password',
          created_at: expect.any(String),
          last_seen_at: expect.any(String),
          expires_at: expect.any(String),
          client_address: expect.stringMatching(/127\.0\.0\.1/),
          user_agent: expect.any(String),
          current: expect.any(Boolean),
        });
        expect(new Date(session.expires_at).getTime() - new Date(session.created_at).getTime()).toBe(
          43_200_000,
        );
      }
      // The handle is neither the cookie value nor its hash.
      const text = JSON.stringify(sessions);
      for (const token of [laptop.session!, phone.session!]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(sha256(token));
      }
      // Seen from the laptop, the laptop is current.
      expect((await list(laptop)).map((s) => [s.user_agent, s.current])).toEqual([
        ['Phone/2.0', false],
        ['Laptop/1.0', true],
      ]);
    });

    it('leaves out a session past its idle time-out', async () => {
      const old = await login('cid', 'Old/1');
      server.clock.advanceSeconds(1700);
      const fresh = await login('cid', 'Fresh/1');
      server.clock.advanceSeconds(200); // `old` idle 1900 s > 1800 s; `fresh` idle 200 s
      expect((await list(fresh)).map((s) => s.user_agent)).toEqual(['Fresh/1']);
      expect(await alive(old)).toBe(false);
    });

    it('DELETE ends one of the caller’s other sessions at once', async () => {
      const mine = await login('dee', 'Mine/1');
      const other = await login('dee', 'Other/1');
      const target = (await list(mine)).find((s) => !s.current)!;
      const path = `/api/v1/sessions/${target.handle}/`;
      const response = await mine.request('DELETE', path);
      expectAnswer('DELETE', path, response, 200);
      expect(response.body).toEqual({});
      expect(response.setCookies).toEqual([]);
      expect(await alive(other)).toBe(false);
      expect(await alive(mine)).toBe(true);
      expect((await list(mine)).map((s) => s.user_agent)).toEqual(['Mine/1']);
      // Again: it is gone.
      expectAnswer('DELETE', path, await mine.request('DELETE', path), 404, 'NOT_FOUND');
    });

    it('DELETE of the current session ends it and clears the cookie', async () => {
      const client = await login('dee', 'Self/1');
      const own = (await list(client)).find((s) => s.current)!;
      const path = `/api/v1/sessions/${own.handle}`; // without the trailing slash: same route
      const response = await client.request('DELETE', path);
      expectAnswer('DELETE', path, response, 200);
      expect(response.setCookies).toEqual([expect.stringMatching(/^sessionid=;.*Max-Age=0/)]);
      expect(client.session).toBeUndefined();
    });

    it("DELETE of another user's handle is 404 NOT_FOUND, like an unknown one, and ends nothing", async () => {
      const eve = await login('eve');
      const fay = await login('fay');
      const faysHandle = (await list(fay))[0]!.handle as string;
      for (const handle of [faysHandle, 'AAAAAAAAAAAAAAAA', 'x'.repeat(200)]) {
        const path = `/api/v1/sessions/${handle}/`;
        const response = await eve.request('DELETE', path);
        expectAnswer('DELETE', path, response, 404, 'NOT_FOUND');
        expect(response.body.detail).toBe('You have no session with this handle.');
      }
      // Served by the same route (the document lists only POST there).
      expect((await eve.request('DELETE', REVOKE_OTHERS)).body.code).toBe('NOT_FOUND');
      expect(await alive(fay)).toBe(true);
      expect(await alive(eve)).toBe(true);
    });

    it('DELETE from another origin is refused (ORIGIN_REJECTED) and ends nothing', async () => {
      const client = await login('eve');
      const other = await login('eve');
      const handle = (await list(client)).find((s) => !s.current)!.handle;
      const path = `/api/v1/sessions/${handle}/`;
      const response = await client.request('DELETE', path, { headers: { origin: 'https://evil.example' } });
      expectAnswer('DELETE', path, response, 403, 'ORIGIN_REJECTED');
      expect(await alive(other)).toBe(true);
    });

    it('revoke-others ends every other session of the caller and says how many', async () => {
      const current = await login('gus', 'Keep/1');
      const others = [await login('gus'), await login('gus'), await login('gus')];
      const bystander = await login('ann');
      const response = await current.post(REVOKE_OTHERS, {});
      expectAnswer('POST', REVOKE_OTHERS, response, 200);
      expect(response.body).toEqual({ revoked: 3 });
      for (const client of others) expect(await alive(client)).toBe(false);
      expect(await alive(current)).toBe(true);
      expect(await alive(bystander)).toBe(true);
      // No body at all is an empty request; nothing left to end.
      const again = await current.request('POST', REVOKE_OTHERS);
      expectAnswer('POST', REVOKE_OTHERS, again, 200);
      expect(again.body).toEqual({ revoked: 0 });
    });

    it('needs a session: 401 NOT_AUTHENTICATED without one', async () => {
      const anonymous = new TestClient(server.url);
      expectAnswer('GET', LIST, await anonymous.get(LIST), 401, 'NOT_AUTHENTICATED');
      const path = '/api/v1/sessions/AAAAAAAAAAAAAAAA/';
      expectAnswer('DELETE', path, await anonymous.request('DELETE', path), 401, 'NOT_AUTHENTICATED');
      expectAnswer('POST', REVOKE_OTHERS, await anonymous.post(REVOKE_OTHERS, {}), 401, 'NOT_AUTHENTICATED');
    });

    it('is closed to an expired-credentials session: 403 PASSWORD_EXPIRED', async () => {
      const expired = await login('exp');
      const other = await login('exp');
      expectAnswer('GET', LIST, await expired.get(LIST), 403, 'PASSWORD_EXPIRED');
      const path = '/api/v1/sessions/AAAAAAAAAAAAAAAA/';
      expectAnswer('DELETE', path, await expired.request('DELETE', path), 403, 'PASSWORD_EXPIRED');
      expectAnswer('POST', REVOKE_OTHERS, await expired.post(REVOKE_OTHERS, {}), 403, 'PASSWORD_EXPIRED');
      // The other session was left alone (it is itself expired-credentials, so /session/ says 403).
      expect((await other.get('/api/v1/session/')).status).toBe(403);
    });

    it('refuses a non-JSON body on revoke-others (415) and answers 405 on other methods', async () => {
      const client = await login('ann');
      const response = await client.request('POST', REVOKE_OTHERS, {
        body: 'x=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectAnswer('POST', REVOKE_OTHERS, response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const put = await client.request('PUT', LIST);
      expect(put.status).toBe(405);
      expect(put.body.code).toBe('METHOD_NOT_ALLOWED');
    });

    it('writes an audit event for each ending, with the handle and never the token', async () => {
      const ann = await login('ann', 'Auditor/1');
      const second = await login('ann', 'Second/1');
      const handle = (await list(ann)).find((s) => s.user_agent === 'Second/1')!.handle as string;
      await ann.request('DELETE', `/api/v1/sessions/${handle}/`);
      await login('ann');
      const others = (await list(ann)).filter((s) => !s.current).length;
      expect(others).toBeGreaterThanOrEqual(1);
      expect((await ann.post(REVOKE_OTHERS, {})).body).toEqual({ revoked: others });
      const user = (await server.gatehouse.store.users.findByUsername('ann'))!;
      const events = await server.gatehouse.store.audit.listForUser(user.userId, { limit: 1000 });
      const revoked = events.filter((event) => event.event === 'session_revoked');
      expect(revoked.slice(-2)).toEqual([
        expect.objectContaining({
          reason: 'self',
          actor: 'user',
          sessionHandle: handle,
          sessionCount: 1,
          username: 'ann',
        }),
        expect.objectContaining({ reason: 'self', actor: 'user', sessionHandle: null, sessionCount: others }),
      ]);
      expect(JSON.stringify(events)).not.toContain(second.session!);
    });
  });

  describe.skipIf(store === 'postgres' && !pgEnabled)(
    `bounded and paged sessions (issue 14, finding 1) [${store}]`,
    () => {
      let server: TestServer;
      let conformance: OpenApiConformance;
      let annId: string;

      beforeAll(async () => {
        // Parallel logins each hold a place in the throttle's budget while they verify: room for 12.
        server = await startTestServer({
          store,
          env: { SESSIONS_PER_USER_MAX: '4', LOGIN_MAX_FAILURES: '20' },
        });
        annId = (
          await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' })
        ).userId;
        await seedUser(server, { username: 'bob', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
        conformance = await OpenApiConformance.load(server.url);
      });
      afterAll(() => server?.close());

      async function login(username: string): Promise<TestClient> {
        const client = new TestClient(server.url);
        expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
        server.clock.advanceSeconds(1);
        return client;
      }
      const alive = async (client: TestClient) => (await client.get('/api/v1/session/')).status === 200;

      it('a login beyond SESSIONS_PER_USER_MAX ends the least recently used session, audited as such', async () => {
        const clients: TestClient[] = [];
        for (let i = 0; i < 4; i++) clients.push(await login('ann'));
        // The oldest is used again (last-seen is written at most once a minute): it is not the least recent.
        server.clock.advanceSeconds(120);
        expect(await alive(clients[0]!)).toBe(true);
        clients.push(await login('ann'));
        clients.push(await login('ann'));
        expect(await Promise.all(clients.map(alive))).toEqual([true, false, false, true, true, true]);
        const events = await server.gatehouse.store.audit.listForUser(annId, { limit: 100 });
        const limited = events.filter((event) => event.reason === 'session_limit');
        expect(limited).toHaveLength(2);
        expect(limited[0]).toMatchObject({ event: 'session_revoked', actor: 'system', sessionCount: 1 });
      });

      it('keeps exactly SESSIONS_PER_USER_MAX under parallel logins', async () => {
        const clients = await Promise.all(
          Array.from({ length: 12 }, async () => {
            const client = new TestClient(server.url);
            expect(
              (await client.post('/api/v1/login/', { username: 'bob', password: PASSWORD })).status,
            ).toBe(200);
            return client;
          }),
        );
        expect((await Promise.all(clients.map(alive))).filter(Boolean)).toHaveLength(4);
      });

      it('pages the list newest first with next_cursor, and refuses a bad limit or cursor with 400', async () => {
        const client = await login('ann');
        const seen: string[] = [];
        let path = `${LIST}?limit=3`;
        const pages: number[] = [];
        for (;;) {
          const response = await client.get(path);
          conformance.assert('GET', path, response);
          expect(response.status).toBe(200);
          pages.push(response.body.sessions.length);
          seen.push(...response.body.sessions.map((session: { created_at: string }) => session.created_at));
          if (!response.body.next_cursor) break;
          path = `${LIST}?limit=3&cursor=${encodeURIComponent(response.body.next_cursor)}`;
        }
        expect(pages).toEqual([3, 1]);
        expect(seen).toEqual([...seen].sort().reverse());
        expect((await client.get(`${LIST}?limit=4`)).body.next_cursor).toBeUndefined();
        for (const query of [
          'limit=0',
          'limit=101',
          'limit=abc',
          'limit=-1',
          'limit=1&limit=2',
          'cursor=%25%25',
          'cursor=bm90LWEtY3Vyc29y',
        ]) {
          const response = await client.get(`${LIST}?${query}`);
          conformance.assert('GET', `${LIST}?${query}`, response);
          expect({ query, status: response.status, code: response.body.code }).toEqual({
            query,
            status: 400,
            code: 'INVALID_REQUEST',
          });
        }
      });
    },
  );

  describe.skipIf(store === 'postgres' && !pgEnabled)(`the service's purge [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store, env: { PURGE_BATCH_SIZE: '2' } });
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
    });
    afterAll(() => server?.close());

    // Redis forgets each session at its own time to live (it declares no purge), the memory store
    // at its keep-until (met on the way here): the purge has nothing left to do there. The SQL
    // stores keep rows until deleted: the purge deletes them, in batches.
    const forgetsByItself = store === 'redis' || store === 'redis-cluster' || store === 'memory';

    it(
      forgetsByItself
        ? 'the store forgets timed-out sessions by itself: the purge finds none; they are refused'
        : 'one cycle deletes timed-out sessions in batches of PURGE_BATCH_SIZE; live ones stay',
      async () => {
        const old: TestClient[] = [];
        for (let i = 0; i < 5; i++) {
          const client = new TestClient(server.url);
          expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(
            200,
          );
          old.push(client);
        }
        server.clock.advanceSeconds(13 * 3600);
        const live = new TestClient(server.url);
        await live.post('/api/v1/login/', { username: 'ann', password: PASSWORD });
        const { store: sqlStore } = server.gatehouse;
        if (forgetsByItself) {
          expect(await server.gatehouse.purger.runOnce()).toMatchObject({ sessions: 0 });
          expect((await live.get('/api/v1/session/')).status).toBe(200);
          for (const client of old) expect((await client.get('/api/v1/session/')).status).toBe(401);
          return;
        }
        const purgeExpired = vi.spyOn(sqlStore.sessions.capabilities.purge!, 'purgeExpired');
        try {
          expect(await server.gatehouse.purger.runOnce()).toMatchObject({ sessions: 5 });
          expect(purgeExpired.mock.calls.map((call) => call[2])).toEqual([2, 2, 2]);
        } finally {
          purgeExpired.mockRestore();
        }
        // One session left in the store, whichever it is.
        const ann = (await server.gatehouse.store.users.findByUsername('ann'))!;
        expect(await server.gatehouse.store.sessions.listForUser(ann.userId)).toHaveLength(1);
        expect((await live.get('/api/v1/session/')).status).toBe(200);
        expect((await old[0]!.get('/api/v1/session/')).status).toBe(401);
      },
    );
  });
}
