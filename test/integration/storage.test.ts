import { afterAll, beforeAll } from 'vitest';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { sessionRepositoryContract } from '../contract/session-repository.contract.js';
import { throttleStoreContract } from '../contract/throttle-store.contract.js';
import { userRepositoryContract } from '../contract/user-repository.contract.js';
import { forEachStore, repositories, truncateAll } from '../support/databases.js';

// One database per store for this file, emptied before each test: isolation without paying
// for a new database (PGlite restore ~0.6 s, PostgreSQL schema + migrations) per test.
forEachStore('SQL storage', (open) => {
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
  sessionRepositoryContract(fresh);
  throttleStoreContract(fresh);
});
