/**
 * Issue 11, finding 1: a burst of parallel guesses must never get more passwords verified than
 * the throttle's budget (LOGIN_MAX_FAILURES per account per window), on one instance or on two
 * sharing a store. The service's hasher is wrapped to count the verifications it really ran.
 * Before the fix (check, verify, then count) a burst of 40 verified all 40 and the right
 * password inside the burst logged in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { loadConfig } from '../../src/boot/config/config.js';
import type { PasswordHasher } from '../../src/domain/password/password-hasher.port.js';
import {
  ALL_SERVICE_STORES,
  connectPostgres,
  openTestStore,
  pgEnabled,
  schemaConnectionString,
  type TestPgSqlClient,
} from '../support/databases.js';
import { TestClock } from '../support/test-clock.js';
import { seedUser, startTestServer, TEST_ENV, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const MAX_FAILURES = 3;
const BURST = 40;

/** The service's own hasher, counting every verification (real or dummy) it performs. */
class CountingHasher implements PasswordHasher {
  verified = 0;
  constructor(private readonly inner: PasswordHasher) {}
  hash(password: string) {
    return this.inner.hash(password);
  }
  verify(stored: string, password: string) {
    this.verified += 1;
    return this.inner.verify(stored, password);
  }
  needsRehash(stored: string) {
    return this.inner.needsRehash(stored);
  }
  isSupportedHash(stored: string) {
    return this.inner.isSupportedHash(stored);
  }
  verifyDummy(password: string) {
    this.verified += 1;
    return this.inner.verifyDummy(password);
  }
}

/** The time of day, as in production: the burst is not frozen in one instant. */
class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

let seq = 0;

for (const store of ALL_SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`a burst of parallel guesses [${store}]`, () => {
    const env = { LOGIN_MAX_FAILURES: String(MAX_FAILURES), LOG_LEVEL: 'warn' };
    const config = loadConfig({ ...TEST_ENV, ...env });
    const hasher = new CountingHasher(new Argon2PasswordHasher(config.password.argon2));
    let shared: SqlClient;
    let second: SqlClient | null = null;
    let a: TestServer;
    let b: TestServer;

    beforeAll(async () => {
      shared = await openTestStore(store === 'postgres' ? 'postgres' : 'pglite');
      // Two instances on one store: PostgreSQL gets a second pool of its own (another process's
      // view); the embedded PGlite is one database in this process, shared as it is.
      second =
        store === 'postgres'
          ? connectPostgres(
              schemaConnectionString(process.env.TEST_DATABASE_URL!, (shared as TestPgSqlClient).schema),
            )
          : null;
      const clock = new WallClock();
      a = await startTestServer({ store, env, clock, passwordHasher: hasher, sqlClient: shared });
      // On Redis the second instance reads and writes the first one's keys (one prefix).
      const settings = a.config.sessionStore;
      const sameKeys: Record<string, string> =
        settings.kind === 'redis' ? { REDIS_KEY_PREFIX: settings.keyPrefix } : {};
      b = await startTestServer({
        store,
        env: { ...env, ...sameKeys },
        clock,
        passwordHasher: hasher,
        sqlClient: second ?? shared,
      });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    async function burst(urls: string[]) {
      seq += 1;
      const username = `target${seq}`;
      await seedUser(a, { username, password: PASSWORD });
      hasher.verified = 0;
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          new TestClient(urls[i % urls.length]!).post('/api/v1/login/', {
            username,
            // The right password is the last of the burst: it must not slip in either.
            password: i === BURST - 1 ? PASSWORD : `wrong guess ${i}`,
          }),
        ),
      );
      return { responses, verified: hasher.verified };
    }

    function expectBudgetHeld({ responses, verified }: Awaited<ReturnType<typeof burst>>) {
      const statuses = responses.map((response) => response.status);
      expect(verified).toBeLessThanOrEqual(MAX_FAILURES);
      expect(statuses.filter((status) => status === 401 || status === 200)).toHaveLength(verified);
      expect(statuses.filter((status) => status === 429)).toHaveLength(BURST - verified);
      expect(statuses[BURST - 1]).toBe(429);
    }

    it(`verifies at most ${MAX_FAILURES} of ${BURST} parallel guesses on one instance`, async () => {
      const result = await burst([a.url]);
      expectBudgetHeld(result);
      console.info(`[throttle burst ${store}] one instance: ${result.verified} of ${BURST} guesses verified`);
    });

    it(`verifies at most ${MAX_FAILURES} of ${BURST} parallel guesses spread over two instances`, async () => {
      const result = await burst([a.url, b.url]);
      expectBudgetHeld(result);
      console.info(
        `[throttle burst ${store}] two instances: ${result.verified} of ${BURST} guesses verified`,
      );
    });

    it('verifies at most the budget of a password change, in parallel, and the login shares it', async () => {
      seq += 1;
      const username = `changer${seq}`;
      await seedUser(a, { username, password: PASSWORD });
      const client = new TestClient(a.url);
      expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      hasher.verified = 0;
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.post('/api/v1/password/', {
            old_password: `wrong ${i}`,
            new_password: 'a brand new passphrase',
          }),
        ),
      );
      expect(hasher.verified).toBe(MAX_FAILURES);
      expect(responses.filter((response) => response.status === 403)).toHaveLength(MAX_FAILURES);
      expect(responses.filter((response) => response.status === 429)).toHaveLength(20 - MAX_FAILURES);
      expect(
        (await new TestClient(b.url).post('/api/v1/login/', { username, password: PASSWORD })).status,
      ).toBe(429);
    });
  });
}
