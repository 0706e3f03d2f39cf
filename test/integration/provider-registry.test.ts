import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { SqlAuditLog } from '../../src/adapters/sql/sql-audit-log.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
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

      expect(
        (await new SqlProviderRegistry(client, AesTokenSealer.random()).find('acme'))?.secrets,
      ).toBeNull();
      // A sealed value copied onto another provider's row does not open there.
      await registry.add(providerSettings('globex'), { clientSecret: 'other', settings: {} }, BY_ADMIN);
      await client.query(
        "UPDATE sso_providers SET sealed_secrets = (SELECT sealed_secrets FROM sso_providers WHERE id = 'acme') WHERE id = 'globex'",
      );
      expect((await registry.find('globex'))?.secrets).toBeNull();
      expect((await registry.find('acme'))?.secrets?.clientSecret).toBe('shh-client-secret');
    });

    it('lists a row sealed under another key beside the others, lets it be disabled and removed, and refuses to update it', async () => {
      const registry = await fresh();
      const elsewhere = new SqlProviderRegistry(client, AesTokenSealer.random());
      await elsewhere.add(providerSettings('sealed-elsewhere'), SECRETS, BY_ADMIN);
      await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN);

      const listed = await registry.list();
      expect(listed.map((provider) => [provider.id, provider.secrets?.clientSecret ?? null])).toEqual([
        ['acme', SECRETS.clientSecret],
        ['sealed-elsewhere', null],
      ]);
      expect(await registry.update('sealed-elsewhere', { settings: { levels: [4] } }, BY_ADMIN)).toEqual({
        ok: false,
        refusal: { kind: 'secrets-unreadable', id: 'sealed-elsewhere' },
      });
      // The refused update left the row whole: the key that sealed it still opens it.
      expect(await elsewhere.find('sealed-elsewhere')).toMatchObject({
        levels: [8],
        secrets: { clientSecret: SECRETS.clientSecret },
      });
      const disabled = await registry.setEnabled('sealed-elsewhere', false, BY_ADMIN);
      expect(disabled.ok && disabled.value.enabled).toBe(false);
      expect((await registry.remove('sealed-elsewhere', BY_ADMIN)).ok).toBe(true);
      expect((await registry.list()).map((provider) => provider.id)).toEqual(['acme']);
    });
  });
});
