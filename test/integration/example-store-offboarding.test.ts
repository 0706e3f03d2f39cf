/**
 * The worked store of docs/stores.md beside the database, as the service runs a team's own store:
 * offboarding a provider finds its sessions through that store's required operations alone.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { MemoryThrottleStore } from '../../src/adapters/memory/memory-throttle-store.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { SqlUserLookup } from '../../src/adapters/sql/sql-user-lookup.js';
import { SplitStore } from '../../src/adapters/stores/split-store.js';
import { providerSessionEndingContract } from '../contract/provider-session-ending.contract.js';
import { type KeyValue, KeyValueSessionStore } from '../examples/key-value-session-store.js';
import { openTestStore, testMigrations, truncateAll } from '../support/databases.js';

/** A key/value database in a `Map` (these sessions outlive the test: no expiry to honour). */
function mapKeyValue(): KeyValue {
  const values = new Map<string, string>();
  return {
    get: async (key) => values.get(key) ?? null,
    set: async (key, value) => {
      values.set(key, value);
    },
    delete: async (key) => values.delete(key),
  };
}

describe('the docs/stores.md example beside the database [example]', () => {
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
        sessions: new KeyValueSessionStore(mapKeyValue()),
        throttle: new MemoryThrottleStore(),
        isReady: async () => true,
        close: async () => undefined,
      },
      new SqlUserLookup(sql),
    );
    return Object.assign(store, { close: async () => undefined });
  });
});
