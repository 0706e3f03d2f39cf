import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { SqlAuditLog } from '../../src/adapters/sql/sql-audit-log.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import {
  ProviderSecretsUnreadableError,
  SqlProviderRegistry,
} from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { providerRegistryContract, providerSettings } from '../contract/provider-registry.contract.js';
import { forEachStore, truncateAll } from '../support/databases.js';

const BY_ADMIN = { now: new Date('2026-03-01T00:00:00Z'), actor: 'administrator' } as const;
const SECRETS = { clientSecret: 'shh-client-secret', settings: {} };

forEachStore('SQL provider registry', (open) => {
  let client: SqlClient;
  const sealer = AesTokenSealer.random();

  beforeAll(async () => {
    client = await open();
  });
  afterAll(async () => {
    await client?.close();
  });

  const fresh = async () => {
    await truncateAll(client);
    const directory = new SqlDirectoryRepository(client);
    await directory.addTenant('t1', 'Acme');
    await directory.addTenant('t2', 'Globex');
    return new SqlProviderRegistry(client, sealer);
  };

  providerRegistryContract(fresh);

  describe('audit', () => {
    it('records every change with the provider it concerns, in the same transaction, and a refusal not at all', async () => {
      const registry = await fresh();
      const audit = new SqlAuditLog(client);
      await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN);
      await registry.update('acme', { settings: { levels: [4] } }, BY_ADMIN);
      await registry.setEnabled('acme', false, BY_ADMIN);
      await registry.setEnabled('acme', true, BY_ADMIN);
      await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN); // refused: id taken
      await registry.setEnabled('acme', false, BY_ADMIN);
      await registry.remove('acme', BY_ADMIN);
      const records = await audit.listSince(new Date(0), 100);
      expect(records.map((record) => [record.event, record.providerId, record.actor])).toEqual([
        ['provider_added', 'acme', 'administrator'],
        ['provider_updated', 'acme', 'administrator'],
        ['provider_disabled', 'acme', 'administrator'],
        ['provider_enabled', 'acme', 'administrator'],
        ['provider_disabled', 'acme', 'administrator'],
        ['provider_removed', 'acme', 'administrator'],
      ]);
      expect(JSON.stringify(records)).not.toContain(SECRETS.clientSecret);
    });
  });

  describe('secrets at rest', () => {
    it('stores no secret in clear and opens them only under the key and the id that sealed them', async () => {
      const registry = await fresh();
      await registry.add(
        providerSettings('acme'),
        { clientSecret: 'shh-client-secret', settings: { TOKEN: 'shh-setting' } },
        BY_ADMIN,
      );
      const { rows } = await client.query<Record<string, unknown>>('SELECT * FROM sso_providers');
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain('shh-client-secret');
      expect(stored).not.toContain('shh-setting');

      await expect(new SqlProviderRegistry(client, AesTokenSealer.random()).find('acme')).rejects.toThrow(
        ProviderSecretsUnreadableError,
      );
      // A sealed value copied onto another provider's row does not open there.
      await registry.add(providerSettings('globex'), { clientSecret: 'other', settings: {} }, BY_ADMIN);
      await client.query(
        "UPDATE sso_providers SET sealed_secrets = (SELECT sealed_secrets FROM sso_providers WHERE id = 'acme') WHERE id = 'globex'",
      );
      await expect(registry.find('globex')).rejects.toThrow(/provider globex/);
      expect((await registry.find('acme'))?.secrets.clientSecret).toBe('shh-client-secret');
    });
  });
});
