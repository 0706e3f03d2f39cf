import { afterAll, beforeAll } from 'vitest';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { auditLogContract } from '../contract/audit-log.contract.js';
import { forEachStore, truncateAll } from '../support/databases.js';

// The AuditLog contract on both stores, through SqlStore so the transaction case uses the real
// unit of work the use cases use.
forEachStore('SQL audit log', (open) => {
  let client: SqlClient;

  beforeAll(async () => {
    client = await open();
  });
  afterAll(async () => {
    await client?.close();
  });

  auditLogContract(async () => {
    await truncateAll(client);
    const store = new SqlStore(client, []);
    return {
      audit: store.audit,
      transaction: (work) => store.transaction((repositories) => work(repositories.audit)),
      close: async () => {},
    };
  });
});
