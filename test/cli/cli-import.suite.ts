import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import type { SqlStore } from '../../src/adapters/sql/sql-store.js';
import type { StoreKind } from '../support/databases.js';
import {
  type CliTarget,
  countRows,
  describeCliStore,
  openCliTarget,
  runGatehouse,
  unique,
} from './cli-support.js';

const UNSUPPORTED_HASH =
  'not a supported hash (argon2id PHC string, Django pbkdf2_sha256$..., bcrypt $2a$/$2b$), or its cost is beyond the bounds ' +
  '(argon2id m <= 64 MiB, t <= 10, p <= 4; pbkdf2 <= 1,500,000 iterations; bcrypt cost <= 14)';

const TABLES = ['tenants', 'backends', 'groups', 'users'] as const;

export function djangoPbkdf2(password: string, iterations = 1000): string {
  const salt = randomBytes(9).toString('base64url');
  const key = pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64');
  return `pbkdf2_sha256$${iterations}$${salt}$${key}`;
}

async function counts(store: SqlStore): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of TABLES) result[table] = await countRows(store, table);
  return result;
}

/** `gatehouse import FILE.jsonl` (contract section 8), run as a child process. */
export function importSuite(kind: StoreKind): void {
  describeCliStore(kind, 'gatehouse import', () => {
    let target: CliTarget;
    let dir: string;
    const hasher = new Argon2PasswordHasher();
    const id = unique('x');
    const t = `t-${id}`;
    const g = `g-${id}`;
    const be = `be-${id}`;
    const passwords = {
      plain: 'ann-own-password',
      argon: 'argon-own-password',
      django: 'django-own-password',
      bcryptB: 'bcrypt-b-own-password',
      bcryptA: 'bcrypt-a-own-password',
    };

    const gatehouse = (args: string[]) => runGatehouse(args, { env: target.env });
    const file = async (name: string, lines: Array<object | string>) => {
      const path = join(dir, name);
      await writeFile(
        path,
        `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`,
      );
      return path;
    };
    const user = (username: string, extra: object = {}) => ({
      kind: 'user',
      username,
      user_level: 0,
      tenant_id: t,
      group_id: g,
      ...extra,
    });

    beforeAll(async () => {
      target = await openCliTarget(kind);
      dir = await mkdtemp(join(tmpdir(), 'gatehouse-import-'));
    });
    afterAll(async () => {
      await target?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('imports every kind, plain passwords and each hash format, in one go; prints the counts', async () => {
      const argonHash = await hasher.hash(passwords.argon);
      const bcryptB = bcrypt.hashSync(passwords.bcryptB, 4);
      const bcryptA = bcrypt.hashSync(passwords.bcryptA, 4).replace(/^\$2b\$/, '$2a$');
      const djangoHash = djangoPbkdf2(passwords.django);
      const path = await file('good.jsonl', [
        // A user before its group: records are written references first, whatever the order.
        user(`ann-${id}`, {
          user_id: `u-ann-${id}`,
          backend: be,
          first_name: 'Ann',
          last_name: 'Lee',
          language: 'English',
          language_code: 'en',
          emailAddress: 'ann@example.com',
          phoneNumber: '+33 1 2',
          platform_type: 'pbx',
          access_type: 3,
          read_only: false,
          user_type: 'agent',
          role: 'boss',
          is_enterprise: true,
          password: passwords.plain,
        }),
        { kind: 'tenant', id: t, name: 'Acme' },
        { kind: 'backend', name: be, external_name: 'Paris Main Server' },
        { kind: 'group', id: g, tenant_id: t, name: 'Sales' },
        '',
        user(`dept-${id}`, { user_level: 4, password_hash: argonHash }),
        user(`gadm-${id}`, { user_level: 8, password_hash: djangoHash, must_change_password: true }),
        { kind: 'user', username: `tadm-${id}`, user_level: 12, tenant_id: t, password_hash: bcryptB },
        {
          kind: 'user',
          username: `sys-${id}`,
          user_level: 16,
          password_hash: bcryptA,
          credentials_expire_at: '2030-01-31T00:00:00Z',
          group_id: null,
        },
        user(`sso-${id}`, { user_level: 8 }),
      ]);
      const result = await gatehouse(['import', path]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`imported ${path}: 1 tenant, 1 backend, 1 group, 6 users\n`);

      await target.withStore(async (store) => {
        expect(await counts(store)).toEqual({ tenants: 1, backends: 1, groups: 1, users: 6 });
        const ann = await store.users.findByUsername(`ann-${id}`);
        expect(ann).toMatchObject({
          userId: `u-ann-${id}`,
          userLevel: 0,
          tenantId: t,
          groupId: g,
          backend: { name: be, externalName: 'Paris Main Server' },
          firstName: 'Ann',
          lastName: 'Lee',
          language: 'English',
          languageCode: 'en',
          emailAddress: 'ann@example.com',
          phoneNumber: '+33 1 2',
          platformType: 'pbx',
          accessType: 3,
          readOnly: false,
          userType: 'agent',
          role: 'boss',
          isEnterprise: true,
          // The users' own passwords: not marked for change.
          mustChangePassword: false,
        });
        expect(ann!.passwordHash).toMatch(/^\$argon2id\$/);
        expect(await hasher.verify(ann!.passwordHash!, passwords.plain)).toBe(true);

        const expected: Array<[string, string, string, boolean]> = [
          [`dept-${id}`, argonHash, passwords.argon, false],
          [`gadm-${id}`, djangoHash, passwords.django, true],
          [`tadm-${id}`, bcryptB, passwords.bcryptB, false],
          [`sys-${id}`, bcryptA, passwords.bcryptA, false],
        ];
        for (const [username, hash, password, mustChange] of expected) {
          const imported = await store.users.findByUsername(username);
          expect(imported!.passwordHash).toBe(hash);
          expect(imported!.mustChangePassword).toBe(mustChange);
          expect(await hasher.verify(imported!.passwordHash!, password)).toBe(true);
        }
        const generated = await store.users.findByUsername(`dept-${id}`);
        expect(generated!.userId).toMatch(/^[0-9a-f]{32}$/);
        const sys = await store.users.findByUsername(`sys-${id}`);
        expect(sys).toMatchObject({ tenantId: null, groupId: null });
        expect(sys!.credentialsExpireAt?.toISOString()).toBe('2030-01-31T00:00:00.000Z');
        expect((await store.users.findByUsername(`sso-${id}`))!.passwordHash).toBeNull();
      });
    });

    it('a bad line rejects the whole file, naming the line; nothing of the file is written', async () => {
      const before = await target.withStore(counts);
      const path = await file('bad.jsonl', [
        { kind: 'tenant', id: `t2-${id}` },
        { kind: 'group', id: `g2-${id}`, tenant_id: `t2-${id}` },
        { kind: 'backend', name: `be2-${id}`, external_name: null },
        user(`ok1-${id}`, { tenant_id: `t2-${id}`, group_id: `g2-${id}`, password: 'fine password' }),
        user(`ok2-${id}`, { tenant_id: `t2-${id}`, group_id: `g2-${id}` }),
        user(`ok3-${id}`, { tenant_id: `t2-${id}`, group_id: `g2-${id}` }),
        user(`bad-${id}`, { tenant_id: `t2-${id}`, group_id: 'g9' }),
        user(`ok4-${id}`, { tenant_id: `t2-${id}`, group_id: `g2-${id}` }),
      ]);
      const result = await gatehouse(['import', path]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('error INVALID_REQUEST: line 7: group_id: unknown group "g9"\n');
      await target.withStore(async (store) => {
        expect(await counts(store)).toEqual(before);
        expect(await store.directory.findTenant(`t2-${id}`)).toBeNull();
        expect(await store.users.findByUsername(`ok1-${id}`)).toBeNull();
      });
    });

    it('refuses malformed JSON, a mistyped key, an unknown kind or key, and an unsupported hash, by line', async () => {
      const cases: Array<[Array<object | string>, string]> = [
        [
          [{ kind: 'tenant', id: `t3-${id}` }, '{"kind":"user","username":"x", "password": "s3cret-in-json"'],
          'error INVALID_REQUEST: line 2: invalid JSON at column 60\n',
        ],
        [
          [
            { kind: 'tenant', id: `t3-${id}` },
            { kind: 'user', username: 'x', user_level: '0' },
          ],
          'error INVALID_REQUEST: line 2: user_level: Invalid input: expected number, received string\n',
        ],
        [
          [{ kind: 'admin', id: 'x' }],
          'error INVALID_REQUEST: line 1: kind: must be one of "tenant", "backend", "group", "user"\n',
        ],
        [
          [{ kind: 'tenant', id: `t3-${id}` }, '', user(`y-${id}`, { pasword: 'typo' })],
          'error INVALID_REQUEST: line 3: pasword: unknown key (see contract section 8 for the keys)\n',
        ],
        [
          [user(`z-${id}`, { password_hash: 'md5$abc$def' })],
          `error INVALID_REQUEST: line 1: password_hash: ${UNSUPPORTED_HASH}\n`,
        ],
        // Issue 11, finding 8: a legacy hash whose cost would make each login of it cost seconds.
        [
          [
            user(`ok-${id}`, { password_hash: 'pbkdf2_sha256$1000000$salt$' + 'A'.repeat(43) + '=' }),
            user(`slow-${id}`, { password_hash: 'pbkdf2_sha256$5000000$salt$' + 'A'.repeat(43) + '=' }),
          ],
          `error INVALID_REQUEST: line 2: password_hash: ${UNSUPPORTED_HASH}\n`,
        ],
        [
          [user(`slow-${id}`, { password_hash: `$2b$15$${'a'.repeat(53)}` })],
          `error INVALID_REQUEST: line 1: password_hash: ${UNSUPPORTED_HASH}\n`,
        ],
        [
          [
            user(`slow-${id}`, {
              password_hash: `$argon2id$v=19$m=1048576,t=2,p=1$${'c2FsdHNhbHRzYWx0'}$${'A'.repeat(43)}`,
            }),
          ],
          `error INVALID_REQUEST: line 1: password_hash: ${UNSUPPORTED_HASH}\n`,
        ],
      ];
      const before = await target.withStore(counts);
      for (const [index, [lines, expected]] of cases.entries()) {
        const result = await gatehouse(['import', await file(`invalid-${index}.jsonl`, lines)]);
        expect(result.stderr).toBe(expected);
        expect(result.code).toBe(1);
        expect(result.stderr).not.toContain('s3cret');
      }
      expect(await target.withStore(counts)).toEqual(before);
    });

    it('refuses a username twice in the file, or one already in the store (any case), by line', async () => {
      const before = await target.withStore(counts);
      const twice = await gatehouse([
        'import',
        await file('twice.jsonl', [{ kind: 'tenant', id: `t4-${id}` }, user(`dup-${id}`), user(`DUP-${id}`)]),
      ]);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toBe(
        `error INVALID_REQUEST: line 3: username: username "DUP-${id}" appears twice in the file (first on line 2)\n`,
      );
      const existing = await gatehouse([
        'import',
        await file('existing.jsonl', [
          { kind: 'tenant', id: `t4-${id}` },
          user(`new-${id}`),
          user(`ANN-${id}`),
        ]),
      ]);
      expect(existing.code).toBe(1);
      expect(existing.stderr).toBe(`error CONFLICT: line 3: username: user "ANN-${id}" already exists\n`);
      // One canonical form (issue 11, finding 2): "ß" and "ss" are one account, in the file too.
      const folded = await gatehouse([
        'import',
        await file('folded.jsonl', [
          { kind: 'tenant', id: `t4-${id}` },
          user(`straße-${id}`),
          user(`STRASSE-${id}`),
        ]),
      ]);
      expect(folded.code).toBe(1);
      expect(folded.stderr).toBe(
        `error INVALID_REQUEST: line 3: username: username "STRASSE-${id}" appears twice in the file (first on line 2)\n`,
      );
      // Invisible characters (issue 14, finding 4) are refused by line, and shown escaped.
      const hidden = await gatehouse([
        'import',
        await file('hidden.jsonl', [{ kind: 'tenant', id: `t4-${id}` }, user(`adm\u200bin-${id}`)]),
      ]);
      expect(hidden.code).toBe(1);
      expect(hidden.stderr).toBe(
        'error INVALID_REQUEST: line 2: username: must not contain control, format or invisible characters\n',
      );
      expect(await target.withStore(counts)).toEqual(before);
    });
  });
}
