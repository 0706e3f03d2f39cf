import { afterAll, beforeAll, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import { type StoreKind, testMigrations } from '../support/databases.js';
import {
  type CliTarget,
  countRows,
  describeCliStore,
  GOOD_PASSWORD,
  openCliTarget,
  runGatehouse,
  unique,
} from './cli-support.js';

/** `gatehouse migrate`, `tenant/group/backend add`, `user add`, run as child processes. */
export function adminSuite(kind: StoreKind): void {
  describeCliStore(kind, 'gatehouse migrate, directory and user add', () => {
    let target: CliTarget;
    const hasher = new Argon2PasswordHasher();
    const tenant = unique('t');
    const group = unique('g');
    const backend = unique('be');
    const username = unique('Ann');

    beforeAll(async () => {
      target = await openCliTarget(kind, { migrated: false });
    });
    afterAll(async () => {
      await target?.close();
    });

    // One command at a time: the embedded database is single-process.
    const gatehouse = (args: string[], input?: string) =>
      runGatehouse(args, { env: target.env, ...(input === undefined ? {} : { input }) });

    it('migrate applies the migrations once; a second run applies nothing', async () => {
      const first = await gatehouse(['migrate']);
      expect(first).toEqual({
        code: 0,
        stdout: testMigrations()
          .map((migration) => `applied migration ${migration.name}\n`)
          .join(''),
        stderr: '',
      });
      expect(first.stdout).toContain('applied migration 0001_initial.sql\n');

      const second = await gatehouse(['migrate']);
      expect(second).toMatchObject({
        code: 0,
        stdout: 'the database is up to date: no migration to apply\n',
        stderr: '',
      });
    });

    it('adds a tenant, a group and a backend; the same tenant again is a CONFLICT, exit 1', async () => {
      expect(await gatehouse(['tenant', 'add', tenant, '--name', 'Acme'])).toMatchObject({
        code: 0,
        stdout: `added tenant "${tenant}"\n`,
      });
      expect(await gatehouse(['group', 'add', group, '--tenant', tenant, '--name', 'Sales'])).toMatchObject({
        code: 0,
        stdout: `added group "${group}" to tenant "${tenant}"\n`,
      });
      expect(await gatehouse(['backend', 'add', backend, '--external-name', 'Paris Main'])).toMatchObject({
        code: 0,
      });
      expect(await gatehouse(['tenant', 'add', tenant])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `error CONFLICT: id: tenant "${tenant}" already exists\n`,
      });

      await target.withStore(async (store) => {
        expect(await store.directory.findTenant(tenant)).toEqual({ id: tenant, name: 'Acme' });
        expect(await store.directory.findGroup(group)).toEqual({
          id: group,
          tenantId: tenant,
          name: 'Sales',
        });
        expect(await store.directory.findBackend(backend)).toEqual({
          name: backend,
          externalName: 'Paris Main',
        });
      });
    });

    it('user add stores the profile and an argon2id hash marked must-change; the password verifies', async () => {
      // biome-ignore format: one option a line reads best
      const result = await gatehouse(
        [
          'user', 'add', username, '--level', '0', '--tenant', tenant, '--group', group,
          '--user-id', `u-${username}`, '--backend', backend,
          '--first-name', 'Ann', '--last-name', 'Lee', '--email', 'ann@example.com', '--phone', '+33 1 23',
          '--language', 'English', '--language-code', 'en', '--platform-type', 'pbx', '--access-type', '1',
          '--read-only', '--user-type', 'agent', '--role', 'supervisor', '--enterprise', '--password-stdin',
        ],
        `${GOOD_PASSWORD}\n`,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `added user "${username}": user_id "u-${username}", end user (level 0), tenant "${tenant}", ` +
          `group "${group}", backend "${backend}"\nits password must be changed at first login\n`,
      );

      await target.withStore(async (store) => {
        const user = await store.users.findByUsername(username);
        expect(user).toMatchObject({
          userId: `u-${username}`,
          username,
          userLevel: 0,
          tenantId: tenant,
          groupId: group,
          backend: { name: backend, externalName: 'Paris Main' },
          firstName: 'Ann',
          lastName: 'Lee',
          emailAddress: 'ann@example.com',
          phoneNumber: '+33 1 23',
          language: 'English',
          languageCode: 'en',
          platformType: 'pbx',
          accessType: 1,
          readOnly: true,
          userType: 'agent',
          role: 'supervisor',
          isEnterprise: true,
          mustChangePassword: true,
          credentialsExpireAt: null,
          disabled: false,
        });
        expect(user!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        // The line break that ended the input is not part of the password.
        expect(await hasher.verify(user!.passwordHash!, GOOD_PASSWORD)).toBe(true);
        expect(await hasher.verify(user!.passwordHash!, `${GOOD_PASSWORD}\n`)).toBe(false);
      });
    });

    it('refuses, exit 1 with a code, and writes nothing: a weak password, a missing id, a taken username', async () => {
      const weak = await gatehouse(
        ['user', 'add', unique('weak'), '--level', '16', '--password-stdin'],
        'password\n',
      );
      expect(weak.code).toBe(1);
      expect(weak.stderr).toBe(
        'error PASSWORD_POLICY: The password does not meet the password policy.\n' +
          '  password: must have at least 12 characters\n  password: is too common\n',
      );

      const noGroup = await gatehouse(
        ['user', 'add', unique('dept'), '--level', '4', '--tenant', tenant, '--password-stdin'],
        GOOD_PASSWORD,
      );
      expect(noGroup.code).toBe(1);
      expect(noGroup.stderr).toBe(
        'error INVALID_REQUEST: group_id: is required for a department admin (level 4)\n',
      );

      // Usernames are unique regardless of case.
      const taken = await gatehouse(
        ['user', 'add', username.toLowerCase(), '--level', '16', '--password-stdin'],
        GOOD_PASSWORD,
      );
      expect(taken.code).toBe(1);
      expect(taken.stderr).toBe(
        `error CONFLICT: username: user "${username.toLowerCase()}" already exists\n`,
      );
      // ...and under Unicode compatibility forms and full case folding (issue 11, finding 2).
      const fullwidth = await gatehouse(
        [
          'user',
          'add',
          username.toUpperCase().replace(/[A-Z]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)),
          '--level',
          '16',
          '--password-stdin',
        ],
        GOOD_PASSWORD,
      );
      expect(fullwidth.code).toBe(1);
      expect(fullwidth.stderr).toMatch(/^error CONFLICT: username: user ".+" already exists\n$/);

      // Invisible and reordering characters (issue 14, finding 4), shown escaped in the refusal.
      const hidden = await gatehouse(
        ['user', 'add', 'adm\u200bin', '--level', '16', '--password-stdin'],
        GOOD_PASSWORD,
      );
      expect(hidden.code).toBe(1);
      expect(hidden.stderr).toBe(
        'error INVALID_REQUEST: username: must not contain control, format or invisible characters\n',
      );
      const reversed = await gatehouse(
        ['user', 'add', '\u202enimda', '--level', '16', '--password-stdin'],
        GOOD_PASSWORD,
      );
      expect(reversed.code).toBe(1);
      expect(reversed.stderr).toContain('must not contain control, format or invisible characters');
      for (const result of [weak, noGroup, taken, fullwidth, hidden, reversed]) {
        expect(result.stderr).not.toMatch(/\n\s+at /);
      }

      expect(await target.withStore((store) => countRows(store, 'users'))).toBe(1);
    });
  });
}
