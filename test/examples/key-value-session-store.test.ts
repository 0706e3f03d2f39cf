/**
 * The worked example of docs/stores.md, proven as a team would prove its own store: the testing
 * kit's contract suite, over a key/value database (here one in memory, with expiry).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { MemoryThrottleStore } from '../../src/adapters/memory/memory-throttle-store.js';
import { SplitStore } from '../../src/adapters/sql/split-store.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { SqlUserLookup } from '../../src/adapters/sql/sql-user-lookup.js';
import { sessionStoreContract } from '../../src/testing/stores.js';
import { providerSessionEndingContract } from '../contract/provider-session-ending.contract.js';
import { openTestStore, testMigrations, truncateAll } from '../support/databases.js';
import { type KeyValue, KeyValueSessionStore } from './key-value-session-store.js';

/** A key/value database in memory: each value forgotten at its expiry. */
function memoryKeyValue(): KeyValue {
  const values = new Map<string, { value: string; expiresAt: Date | null }>();
  const live = (key: string) => {
    const entry = values.get(key);
    if (entry?.expiresAt && entry.expiresAt.getTime() <= Date.now()) values.delete(key);
    return values.get(key) ?? null;
  };
  return {
    get: async (key) => live(key)?.value ?? null,
    set: async (key, value, expiresAt) => {
      values.set(key, { value, expiresAt });
    },
    delete: async (key) => live(key) !== null && values.delete(key),
  };
}

sessionStoreContract({
  name: 'docs/stores.md example',
  declares: [],
  open: async () => ({ sessions: new KeyValueSessionStore(memoryKeyValue()) }),
});

// Beside the database, as the service runs a team's store: offboarding a provider finds its
// sessions through the store's required operations alone.
describe('the docs/stores.md example beside the database', () => {
  let sql: SqlClient;

  beforeAll(async () => {
    sql = await openTestStore('pglite');
  });
  afterAll(async () => {
    await sql?.close();
  });

  providerSessionEndingContract(async () => {
    await truncateAll(sql);
    const store = new SplitStore(
      new SqlStore(sql, testMigrations()),
      {
        sessions: new KeyValueSessionStore(memoryKeyValue()),
        throttle: new MemoryThrottleStore(),
        isReady: async () => true,
        close: async () => undefined,
      },
      new SqlUserLookup(sql),
    );
    return Object.assign(store, { close: async () => undefined });
  });
});
