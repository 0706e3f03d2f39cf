import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import {
  ProviderSecretsUnreadableError,
  SqlProviderRegistry,
} from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { providerRegistryContract, providerSettings } from '../contract/provider-registry.contract.js';
import { forEachStore, truncateAll } from '../support/databases.js';

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

  describe('secrets at rest', () => {
    it('stores no secret in clear and opens them only under the key and the id that sealed them', async () => {
      const registry = await fresh();
      await registry.add(
        providerSettings('acme'),
        { clientSecret: 'shh-client-secret', settings: { TOKEN: 'shh-setting' } },
        new Date(),
      );
      const { rows } = await client.query<Record<string, unknown>>('SELECT * FROM sso_providers');
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain('shh-client-secret');
      expect(stored).not.toContain('shh-setting');

      await expect(new SqlProviderRegistry(client, AesTokenSealer.random()).find('acme')).rejects.toThrow(
        ProviderSecretsUnreadableError,
      );
      // A sealed value copied onto another provider's row does not open there.
      await registry.add(providerSettings('globex'), { clientSecret: 'other', settings: {} }, new Date());
      await client.query(
        "UPDATE sso_providers SET sealed_secrets = (SELECT sealed_secrets FROM sso_providers WHERE id = 'acme') WHERE id = 'globex'",
      );
      await expect(registry.find('globex')).rejects.toThrow(/provider globex/);
      expect((await registry.find('acme'))?.secrets.clientSecret).toBe('shh-client-secret');
    });
  });
});
