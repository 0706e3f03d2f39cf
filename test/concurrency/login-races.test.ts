/**
 * Requests racing each other on one service over HTTP, on both stores: hundreds of parallel
 * logins of one user, logout against requests on the same session, a password change against
 * logins and against the re-hash of a legacy hash, and parallel failures against the throttle.
 * The service runs with a wall clock here (not the frozen test clock), as in production.
 */
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import { EMPTY_ATTRIBUTES } from '../../src/domain/user/user.js';
import { ONE_PROCESS_STORES, pgEnabled } from '../support/databases.js';
import { HookedHasher } from '../support/hooked-hasher.js';
import { throttleAttempts, throttleKeys } from '../support/stored.js';
import { TestClock } from '../support/test-clock.js';
import { seedUser, startTestServer, TEST_ENV, TestClient, type TestServer } from '../support/test-server.js';

/** The time of day, as the service has in production. */
class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 42';

type Response = Awaited<ReturnType<TestClient['request']>>;

let seq = 0;

for (const store of ONE_PROCESS_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`concurrent requests on one service [${store}]`, () => {
    let server: TestServer;
    // The embedded PGlite is one in-process connection (its statements queue up): fewer rounds
    // show the same there; PostgreSQL, with real parallel connections, gets the full load.
    const logins = store === 'postgres' ? 200 : 100;
    const rounds = store === 'postgres' ? 3 : 2;
    const failures = store === 'postgres' ? 100 : 50;

    const hasher = new HookedHasher(new Argon2PasswordHasher(loadConfig(TEST_ENV).password.argon2));

    beforeAll(async () => {
      server = await startTestServer({
        store,
        passwordHasher: hasher,
        clock: new WallClock(),
        env: { LOGIN_MAX_FAILURES: '1000', SESSIONS_PER_USER_MAX: '1000', LOG_LEVEL: 'warn' },
      });
    });
    afterAll(() => server?.close());

    const sql = <Row>(text: string, params: unknown[] = []) => server.sql.query<Row>(text, params);

    async function freshUser(password = PASSWORD): Promise<{ username: string; userId: string }> {
      seq += 1;
      const username = `racer${seq}`;
      const user = await seedUser(server, { username, password });
      return { username, userId: user.userId };
    }

    const login = (username: string, password: string, client = new TestClient(server.url)) =>
      client.post('/api/v1/login/', { username, password }).then((response) => ({ response, client }));

    /** The user's sessions in the session store, whichever it is. */
    async function sessionHashes(userId: string): Promise<string[]> {
      const listed = await server.gatehouse.store.sessions.listForUser(userId);
      return listed.map((session) => session.tokenHash);
    }

    async function sessionCount(userId: string): Promise<number> {
      return (await sessionHashes(userId)).length;
    }

    it(`logs one user in ${logins} times in parallel: as many distinct sessions, is_first_login true exactly once`, async () => {
      const { username, userId } = await freshUser();
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: logins }, () => login(username, PASSWORD)));
      const ms = Math.round(performance.now() - started);
      expect(results.map(({ response }) => response.status)).toEqual(Array(logins).fill(200));
      const tokens = new Set(results.map(({ client }) => client.session));
      expect(tokens.size).toBe(logins);
      expect(results.filter(({ response }) => response.body.profile.is_first_login === true)).toHaveLength(1);
      expect(await sessionCount(userId)).toBe(logins);
      // Every one of them is a live session.
      const checks = await Promise.all(
        results.slice(0, 50).map(({ client }) => client.get('/api/v1/session/')),
      );
      expect(checks.map((check) => check.status)).toEqual(Array(50).fill(200));
      process.stdout.write(`[concurrency ${store}] ${logins} parallel logins of one user in ${ms} ms\n`);
    });

    it('logs several users in from one address, over and over in parallel, without one failure', async () => {
      // Each attempt writes two budgets (the account's and the address's) before the password and
      // after it: every one of them takes the rows in one order, so no two can wait on each other.
      const users = await Promise.all(Array.from({ length: 4 }, () => freshUser()));
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: 16 }, async (_, lane) => {
          for (let i = 0; i < rounds * 4; i++) {
            const { username } = users[(lane + i) % users.length]!;
            statuses.push((await login(username, PASSWORD)).response.status);
          }
        }),
      );
      expect(statuses).toEqual(Array(16 * rounds * 4).fill(200));
    });

    it('refuses every request sent after a logout completed, however many raced with it', async () => {
      const { username } = await freshUser();
      for (let round = 0; round < rounds + 1; round++) {
        const { client } = await login(username, PASSWORD);
        const racing: Array<Promise<Response>> = [];
        for (let i = 0; i < 30; i++) racing.push(client.get('/api/v1/session/'));
        const logout = client.request('POST', '/api/v1/logout/', {
          json: {},
          headers: { cookie: `sessionid=${client.session}` },
        });
        for (let i = 0; i < 30; i++) racing.push(client.get('/api/v1/session/'));
        const token = client.session!;
        expect((await logout).status).toBe(200);
        // Sent after the logout answered: all refused, at once, every time.
        const after = await Promise.all(
          Array.from({ length: 30 }, () =>
            new TestClient(server.url).get('/api/v1/session/', { cookie: `sessionid=${token}` }),
          ),
        );
        expect(after.map((response) => response.status)).toEqual(Array(30).fill(401));
        // Those that raced it either made it before the delete or were refused: never an error.
        for (const response of await Promise.all(racing)) expect([200, 401]).toContain(response.status);
      }
    });

    it('leaves no session from before a password change, whatever logins raced with it', async () => {
      for (let round = 0; round < rounds; round++) {
        const { username, userId } = await freshUser();
        const before = await Promise.all(Array.from({ length: 5 }, () => login(username, PASSWORD)));
        const changer = before[0]!.client;
        const tokenOld = new Map<string, 'old' | 'new'>();
        const begun = hasher.began;
        const racers = Array.from({ length: 40 }, (_, i) =>
          login(username, i % 2 === 0 ? PASSWORD : NEW_PASSWORD).then((result) => {
            if (result.response.status === 200)
              tokenOld.set(result.client.session!, i % 2 === 0 ? 'old' : 'new');
            return result;
          }),
        );
        // The password changes once some of the racing logins are verifying (more each round).
        await hasher.untilBegun(begun + 4 + round * 12);
        const change = await changer.post('/api/v1/password/', {
          old_password: PASSWORD,
          new_password: NEW_PASSWORD,
        });
        expect(change.status).toBe(200);
        const rotated = changer.session!;
        // Logins with the old password sent after the change are refused.
        const late = await Promise.all(Array.from({ length: 4 }, () => login(username, PASSWORD)));
        expect(late.map(({ response }) => response.status)).toEqual([401, 401, 401, 401]);
        await Promise.all(racers);

        // What survives: the rotated session and sessions of logins with the new password, only.
        const alive = new Set(await sessionHashes(userId));
        expect(alive.has(hashSessionToken(rotated))).toBe(true);
        for (const { client } of before.slice(1))
          expect(alive.has(hashSessionToken(client.session!))).toBe(false);
        const survivingOld = [...tokenOld].filter(
          ([token, password]) => password === 'old' && alive.has(hashSessionToken(token)),
        );
        expect(survivingOld, 'sessions of old-password logins that outlived the change').toEqual([]);
        for (const hash of alive) {
          const known = [...tokenOld].find(([token]) => hashSessionToken(token) === hash);
          if (hash !== hashSessionToken(rotated)) expect(known?.[1]).toBe('new');
        }
        // And over HTTP: the rotated cookie works, the old ones do not.
        expect((await changer.get('/api/v1/session/')).status).toBe(200);
        for (const { client } of before.slice(1))
          expect((await client.get('/api/v1/session/')).status).toBe(401);
      }
    });

    it('never lets the re-hash of a legacy (bcrypt) hash overwrite a concurrent password change', async () => {
      for (let round = 0; round < rounds - 1; round++) {
        seq += 1;
        const username = `legacy${seq}`;
        const user = await server.gatehouse.store.users.create(
          {
            ...EMPTY_ATTRIBUTES,
            userId: `u-legacy-${seq}`,
            username,
            userLevel: 0,
            tenantId: null,
            groupId: null,
            backendName: null,
            passwordHash: await bcrypt.hash(PASSWORD, 8),
            mustChangePassword: false,
          },
          new Date(),
        );
        // The first login upgrades the hash; start from a bcrypt hash again with a session in hand.
        const { client: changer } = await login(username, PASSWORD);
        await sql('UPDATE users SET password_hash = $2 WHERE user_id = $1', [
          user.userId,
          await bcrypt.hash(PASSWORD, 8),
        ]);
        const begun = hasher.began;
        const racers = Array.from({ length: 20 }, () => login(username, PASSWORD));
        // The password changes once some of the racing re-hashing logins are verifying.
        await hasher.untilBegun(begun + 2 + round * 8);
        const change = await changer.post('/api/v1/password/', {
          old_password: PASSWORD,
          new_password: NEW_PASSWORD,
        });
        await Promise.all(racers);
        expect(change.status).toBe(200);
        const { rows } = await sql<{ password_hash: string }>(
          'SELECT password_hash FROM users WHERE user_id = $1',
          [user.userId],
        );
        const stored = rows[0]!.password_hash;
        expect(stored.startsWith('$argon2id$')).toBe(true);
        expect(await server.hasher.verify(stored, NEW_PASSWORD)).toBe(true);
        expect((await login(username, NEW_PASSWORD)).response.status).toBe(200);
        expect((await login(username, PASSWORD)).response.status).toBe(401);
      }
    });

    it(`counts every one of ${failures} parallel failures: no lost update on the throttle row`, async () => {
      const { username } = await freshUser();
      const addressBefore = { rows: await throttleKeys(server, 'addr:') };
      const results = await Promise.all(
        Array.from({ length: failures }, () => login(username, 'wrong password!!')),
      );
      expect(results.map(({ response }) => response.status)).toEqual(Array(failures).fill(401));
      expect(await throttleAttempts(server, `user:${username}`)).toBe(failures);
      const addressAfter = { rows: await throttleKeys(server, 'addr:') };
      expect(addressAfter.rows).toHaveLength(1);
      const previous = addressBefore.rows.find((row) => row.key === addressAfter.rows[0]!.key)?.failures ?? 0;
      expect(addressAfter.rows[0]!.failures - previous).toBe(failures);
    });
  });

  describe.skipIf(store === 'postgres' && !pgEnabled)(
    `parallel failures at the throttle limit [${store}]`,
    () => {
      let server: TestServer;

      beforeAll(async () => {
        server = await startTestServer({ store, clock: new WallClock(), env: { LOG_LEVEL: 'warn' } });
        await seedUser(server, { username: 'target', password: PASSWORD });
      });
      afterAll(() => server?.close());

      it('verifies exactly LOGIN_MAX_FAILURES (5) of 60 parallel guesses; the rest are 429 with Retry-After', async () => {
        const results = await Promise.all(
          Array.from({ length: 60 }, () =>
            new TestClient(server.url).post('/api/v1/login/', {
              username: 'target',
              password: 'wrong password!!',
            }),
          ),
        );
        const failed = results.filter((response) => response.status === 401).length;
        const throttled = results.filter((response) => response.status === 429);
        expect(failed + throttled.length).toBe(60);
        expect(failed).toBe(5);
        for (const response of throttled) {
          expect(response.body.code).toBe('TOO_MANY_ATTEMPTS');
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        }
        expect(await throttleAttempts(server, 'user:target')).toBe(failed);
        // Even the right password waits now.
        const right = await new TestClient(server.url).post('/api/v1/login/', {
          username: 'target',
          password: PASSWORD,
        });
        expect(right.status).toBe(429);
      });
    },
  );
}
