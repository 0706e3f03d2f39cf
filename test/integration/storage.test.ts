import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observedSqlClient } from '../../src/adapters/metrics/observed-sql-client.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { sessionKeepUntil } from '../../src/domain/session/session.js';
import { contractSession, sessionStoreContract, throttleStoreContract } from '../../src/testing/stores.js';
import { providerSessionEndingContract } from '../contract/provider-session-ending.contract.js';
import { seenLogoutTokensContract } from '../contract/seen-logout-tokens.contract.js';
import { serviceSecretsContract } from '../contract/service-secrets.contract.js';
import { sessionLookupContract } from '../contract/session-lookup.contract.js';
import { sessionReplacementContract } from '../contract/session-replacement.contract.js';
import { newUser, T0, userRepositoryContract } from '../contract/user-repository.contract.js';
import { forEachStore, repositories, testMigrations, truncateAll } from '../support/databases.js';

// One database per store for this file, emptied before each test: isolation without paying
// for a new database (PGlite restore ~0.6 s, PostgreSQL schema + migrations) per test.
forEachStore('SQL storage', (open, kind) => {
  let client: SqlClient;

  beforeAll(async () => {
    client = await open();
  });
  afterAll(async () => {
    await client?.close();
  });

  const fresh = async () => {
    await truncateAll(client);
    return { ...repositories(client), close: async () => {} };
  };

  userRepositoryContract(fresh);
  // The session store alone, as the testing kit proves any store; its users exist (foreign key).
  sessionStoreContract({
    name: kind,
    declares: ['purge', 'paging', 'endAll', 'lookupWithUser', 'replace'],
    open: async () => {
      const { sessions, users } = await fresh();
      let made = 0;
      return {
        sessions,
        newUserId: async () => (await users.create(newUser({ username: `kit-${++made}` }), T0)).userId,
      };
    },
  });
  throttleStoreContract({ name: kind, declares: ['purge', 'settle', 'reserveEach'], open: fresh });
  sessionLookupContract(fresh);
  const freshStore = async () => {
    await truncateAll(client);
    return Object.assign(new SqlStore(client, testMigrations()), { close: async () => undefined });
  };
  providerSessionEndingContract(freshStore);
  sessionReplacementContract(freshStore);
  seenLogoutTokensContract(async () => (await fresh()).logoutTokens);
  serviceSecretsContract(async () => (await fresh()).secrets);

  it('keeps a throttle row’s updated_at moving forward when the attempt that read the clock first runs second', async () => {
    const { throttle } = await fresh();
    const later = new Date(T0.getTime() + 5_000);
    await throttle.reserve('user:racing', 10, later, 900);
    await throttle.reserve('user:racing', 10, T0, 900);
    await throttle.capabilities.reserveEach!.reserveEach([{ key: 'user:racing', limit: 10 }], T0, 900);
    const { rows } = await client.query<{ updated_at: Date; window_start: Date; failures: number }>(
      'SELECT updated_at, window_start, failures FROM login_throttle WHERE key = $1',
      ['user:racing'],
    );
    expect(rows[0]).toMatchObject({ failures: 3 });
    expect(new Date(rows[0]!.updated_at).getTime()).toBe(later.getTime());
    expect(new Date(rows[0]!.updated_at).getTime()).toBeGreaterThanOrEqual(
      new Date(rows[0]!.window_start).getTime(),
    );
  });

  describe('unbatched session lookups (as inside a transaction)', () => {
    sessionLookupContract(async () => {
      await truncateAll(client);
      return { ...repositories(client, { batchLookups: false }), close: async () => {} };
    });
  });

  it('sends the session lookups of one event-loop turn as one statement', async () => {
    await truncateAll(client);
    const statements: (string | undefined)[] = [];
    const observed = observedSqlClient(client, ({ statement }) => statements.push(statement));
    const { users, sessions, findSessionWithUser } = repositories(observed);
    const user = await users.create(newUser({ username: 'batched' }), T0);
    const created = Array.from({ length: 20 }, () => contractSession(user.userId, { createdAt: T0 }));
    for (const session of created) await sessions.create(session, sessionKeepUntil(session, 1800));
    statements.length = 0;
    const found = await Promise.all(created.map((session) => findSessionWithUser(session.tokenHash)));
    expect(found.map((item) => item?.session.tokenHash)).toEqual(created.map((session) => session.tokenHash));
    expect(statements).toEqual(['session_by_token_hash']);
  });
});
