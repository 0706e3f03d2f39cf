import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memorySessionSide } from '../../src/adapters/memory/memory-session-side.js';
import { MemorySessionStore } from '../../src/adapters/memory/memory-session-store.js';
import { MemoryThrottleStore } from '../../src/adapters/memory/memory-throttle-store.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { SqlUserLookup } from '../../src/adapters/sql/sql-user-lookup.js';
import { SplitStore } from '../../src/adapters/stores/split-store.js';
import type { SessionSide } from '../../src/domain/session/session-side.port.js';
import type { SessionStoreCapabilities } from '../../src/domain/session/session-store.port.js';
import { systemClock } from '../../src/domain/shared/clock.port.js';
import { contractSession } from '../../src/testing/contract-fixtures.js';
import { sessionStoreContract, throttleStoreContract } from '../../src/testing/stores.js';
import { providerSessionEndingContract } from '../contract/provider-session-ending.contract.js';
import { sessionLookupContract } from '../contract/session-lookup.contract.js';
import { sessionReplacementContract } from '../contract/session-replacement.contract.js';
import { openTestStore, testMigrations, truncateAll } from '../support/databases.js';

// The in-memory stores (SESSION_STORE=memory) as the testing kit proves any store: no database.
sessionStoreContract({
  name: 'memory',
  declares: ['purge', 'endAll', 'replace'],
  open: async () => ({ sessions: new MemorySessionStore(systemClock) }),
});
throttleStoreContract({
  name: 'memory',
  declares: ['purge'],
  open: async () => ({ throttle: new MemoryThrottleStore() }),
});

/** The memory store as a store without `replace` shows itself: its fallback runs instead. */
class MemorySessionStoreWithoutReplace extends MemorySessionStore {
  override readonly capabilities: SessionStoreCapabilities = { purge: this, endAll: this };
}

// With the users on the database (PGlite): the split the service runs with SESSION_STORE=memory.
describe('memory sessions beside the database [memory]', () => {
  let sql: SqlClient;

  beforeAll(async () => {
    sql = await openTestStore('pglite');
  });
  afterAll(async () => {
    await sql?.close();
  });

  const fresh = async (side: SessionSide = memorySessionSide(systemClock)) => {
    await truncateAll(sql);
    const store = new SplitStore(new SqlStore(sql, testMigrations()), side, new SqlUserLookup(sql));
    return Object.assign(store, { close: async () => undefined });
  };
  sessionLookupContract(() => fresh());
  providerSessionEndingContract(() => fresh());
  sessionReplacementContract(() => fresh());
  describe('without the replace capability', () => {
    sessionReplacementContract(() =>
      fresh({
        ...memorySessionSide(systemClock),
        sessions: new MemorySessionStoreWithoutReplace(systemClock),
      }),
    );
  });

  it('takes back the sessions a failed unit stored, made by create or by replace', async () => {
    const store = await fresh();
    const keepUntil = new Date(Date.now() + 3_600_000);
    const old = contractSession('u-split');
    await store.sessions.create(old, keepUntil);
    const made = contractSession('u-split');
    const next = contractSession('u-split');
    await expect(
      store.transaction(async (repositories) => {
        await repositories.sessions.create(made, keepUntil);
        expect(
          await repositories.sessions.capabilities.replace!.replaceSession(old.tokenHash, next, keepUntil),
        ).toEqual(old);
        throw new Error('the unit fails');
      }),
    ).rejects.toThrow('the unit fails');
    // Neither token was handed out: neither session stays (the replaced one stays ended, as a
    // session ended in a failed unit does where sessions live outside the database).
    expect(await store.sessions.findByTokenHash(made.tokenHash)).toBeNull();
    expect(await store.sessions.findByTokenHash(next.tokenHash)).toBeNull();
  });
});
