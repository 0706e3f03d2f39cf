import { pbkdf2Sync } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import { loadCommonPasswords } from '../../src/adapters/password/common-passwords.js';
import { AdminUsers } from '../../src/application/admin/admin-users.js';
import { ImportUsers } from '../../src/application/admin/import-users.js';
import { TOKENS } from '../../src/boot/tokens.js';
import { parseImportFile } from '../../src/cli/import-file.js';
import { PasswordPolicy } from '../../src/domain/password/password-policy.js';
import { POLICY_TARGETS } from '../support/databases.js';
import { startTestServer, TestClient, type TestServer } from '../support/test-server.js';

/**
 * The contract's story end to end: an import file (section 8) of users of every level, then the
 * HTTP service logs each one in and answers exactly the ids of spec 2.2 / contract 5.
 */
const PASSWORD = 'imported-own-password';

function django(password: string): string {
  const salt = 'pepper-salt';
  return `pbkdf2_sha256$1000$${salt}$${pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('base64')}`;
}

for (const store of POLICY_TARGETS) {
  describe(`import, then log in through HTTP [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store, env: { PROVIDE_BACKEND_INFO: 'true' } });
      const argon = await server.hasher.hash(PASSWORD);
      const lines = [
        { kind: 'tenant', id: 't1', name: 'Acme' },
        { kind: 'backend', name: 'be-par-1', external_name: 'Paris Main Server' },
        { kind: 'group', id: 'g1', tenant_id: 't1', name: 'Sales' },
        {
          kind: 'user',
          username: 'ann',
          user_level: 0,
          tenant_id: 't1',
          group_id: 'g1',
          user_id: 'u-ann',
          backend: 'be-par-1',
          first_name: 'Ann',
          emailAddress: 'ann@example.com',
          phoneNumber: '+33 1 2',
          password: PASSWORD,
        },
        {
          kind: 'user',
          username: 'dept',
          user_level: 4,
          tenant_id: 't1',
          group_id: 'g1',
          password_hash: argon,
        },
        {
          kind: 'user',
          username: 'gadmin',
          user_level: 8,
          tenant_id: 't1',
          group_id: 'g1',
          password_hash: django(PASSWORD),
        },
        {
          kind: 'user',
          username: 'tadmin',
          user_level: 12,
          tenant_id: 't1',
          password_hash: bcrypt.hashSync(PASSWORD, 4),
        },
        { kind: 'user', username: 'root', user_level: 16, password: PASSWORD, must_change_password: true },
      ];
      const importer = new ImportUsers(server.gatehouse.store, server.hasher, server.clock, nodeRandom);
      const counts = await importer.execute(
        parseImportFile(lines.map((line) => JSON.stringify(line)).join('\n')),
      );
      expect(counts).toEqual({ tenants: 1, backends: 1, groups: 1, users: 5 });
    });
    afterAll(() => server?.close());

    const login = async (username: string, password = PASSWORD) => {
      const client = new TestClient(server.url);
      return { client, response: await client.post('/api/v1/login/', { username, password }) };
    };

    it.each([
      ['dept', 4, { tenant_id: 't1', group_id: 'g1' }],
      ['gadmin', 8, { tenant_id: 't1', group_id: 'g1' }],
      ['tadmin', 12, { tenant_id: 't1' }],
    ])(
      'logs in %s (level %i, imported hash) with exactly its ids; the hash becomes argon2id',
      async (username, level, ids) => {
        const { response } = await login(username);
        expect(response.status).toBe(200);
        expect(response.body).toStrictEqual({
          ids,
          profile: { user_level: level, is_first_login: true, username },
        });
        const stored = await server.gatehouse.store.users.findByUsername(username);
        expect(stored!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        expect((await login(username)).response.status).toBe(200);
      },
    );

    it('logs in the end user with tenant, group and user ids and the imported profile', async () => {
      const { response } = await login('ann');
      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({
        ids: { tenant_id: 't1', group_id: 'g1', user_id: 'u-ann' },
        profile: {
          user_level: 0,
          is_first_login: true,
          username: 'ann',
          first_name: 'Ann',
          emailAddress: 'ann@example.com',
          backendName: 'be-par-1',
          backendExternalName: 'Paris Main Server',
          phoneNumber: '+33 1 2',
        },
      });
    });

    it('logs in the system admin with no ids; "must_change_password": true makes it expired', async () => {
      const { client, response } = await login('root');
      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({
        ids: {},
        profile: { user_level: 16, is_first_login: true, username: 'root', is_expired: true },
      });
      expect((await client.get('/api/v1/session/')).body.code).toBe('PASSWORD_EXPIRED');
    });

    it('a user added by an administrator logs in expired until the password is changed', async () => {
      const admin = new AdminUsers(
        server.gatehouse.store,
        server.hasher,
        new PasswordPolicy({ minLength: 12, maxLength: 1024, commonPasswords: loadCommonPasswords() }),
        server.clock,
        nodeRandom,
        server.gatehouse.container.get(TOKENS.SessionEnding),
      );
      await admin.add({
        username: 'newcomer',
        userLevel: 0,
        tenantId: 't1',
        groupId: 'g1',
        userId: 'u-newcomer',
        backendName: null,
        password: 'set by the administrator',
      });
      const { client, response } = await login('newcomer', 'set by the administrator');
      expect(response.status).toBe(200);
      expect(response.body.ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1', user_id: 'u-newcomer' });
      expect(response.body.profile.is_expired).toBe(true);
      const changed = await client.post('/api/v1/password/', {
        old_password: 'set by the administrator',
        new_password: 'now one of my very own',
      });
      expect(changed.status).toBe(200);
      expect(changed.body.profile.is_expired).toBeUndefined();
      expect((await client.get('/api/v1/session/')).status).toBe(200);
    });
  });
}
