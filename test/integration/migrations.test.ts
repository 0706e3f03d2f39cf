import { describe, expect, it } from 'vitest';
import { UsernameClashError } from '../../src/adapters/sql/migration-steps/canonical-usernames.js';
import {
  type Migration,
  MigrationChecksumError,
  migrate,
  migrationsApplied,
} from '../../src/adapters/sql/migrator.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlUserRepository } from '../../src/adapters/sql/sql-user-repository.js';
import {
  connectPostgres,
  forEachStore,
  openTestPostgres,
  pgEnabled,
  testMigrations,
} from '../support/databases.js';

const TABLES = ['tenants', 'groups', 'backends', 'users', 'sessions', 'login_throttle', 'audit_events'];

async function tableExists(client: SqlClient, table: string): Promise<boolean> {
  const { rows } = await client.query<{ oid: string | null }>('SELECT to_regclass($1)::text AS oid', [table]);
  return rows[0]?.oid != null;
}

async function recorded(client: SqlClient): Promise<{ name: string; checksum: string }[]> {
  if (!(await tableExists(client, 'schema_migrations'))) return [];
  const { rows } = await client.query<{ name: string; checksum: string }>(
    'SELECT name, checksum FROM schema_migrations ORDER BY name',
  );
  return rows;
}

function migration(name: string, sql: string): Migration {
  return { name, sql, checksum: `checksum-of-${name}-${sql.length}` };
}

async function withClient<T>(client: SqlClient, work: (client: SqlClient) => Promise<T>): Promise<T> {
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

forEachStore('migrations', (open) => {
  const all = testMigrations();

  it('finds the migration files in order', () => {
    expect(all.length).toBeGreaterThan(0);
    expect(all[0]?.name).toBe('0001_initial.sql');
    expect(all.map((m) => m.name)).toEqual([...all.map((m) => m.name)].sort());
  });

  it('applies every migration to an empty database, then nothing on a re-run', async () => {
    await withClient(await open({ migrated: false }), async (client) => {
      expect(await tableExists(client, 'users')).toBe(false);
      expect(await migrate(client, all)).toEqual(all.map((m) => m.name));
      for (const table of TABLES) expect(await tableExists(client, table)).toBe(true);
      expect(await recorded(client)).toEqual(all.map((m) => ({ name: m.name, checksum: m.checksum })));
      expect(await migrationsApplied(client, all)).toBe(true);

      expect(await migrate(client, all)).toEqual([]);
      expect(await recorded(client)).toHaveLength(all.length);
    });
  });

  it('applies only the new migration when one is added', async () => {
    await withClient(await open(), async (client) => {
      const added = migration('9001_added.sql', 'CREATE TABLE added_by_test (id integer PRIMARY KEY);');
      expect(await migrationsApplied(client, [...all, added])).toBe(false);
      expect(await migrate(client, [...all, added])).toEqual(['9001_added.sql']);
      expect(await tableExists(client, 'added_by_test')).toBe(true);
      expect(await migrationsApplied(client, [...all, added])).toBe(true);
    });
  });

  it('refuses to start when an applied migration file was changed, naming the file', async () => {
    await withClient(await open(), async (client) => {
      const first = all[0]!;
      const changed = [
        { ...first, sql: `${first.sql}\n-- edited`, checksum: 'f'.repeat(64) },
        ...all.slice(1),
      ];
      const error = await migrate(client, changed).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MigrationChecksumError);
      expect((error as MigrationChecksumError).migration).toBe(first.name);
      expect((error as Error).message).toContain(first.name);
      // Nothing was changed by the refused run.
      expect(await recorded(client)).toEqual(all.map((m) => ({ name: m.name, checksum: m.checksum })));
    });
  });

  it('leaves nothing applied when a migration fails (one transaction)', async () => {
    await withClient(await open({ migrated: false }), async (client) => {
      const broken = migration(
        '9002_broken.sql',
        'CREATE TABLE created_before_failure (id integer); SELECT no_such_column FROM created_before_failure;',
      );
      await expect(migrate(client, [...all, broken])).rejects.toThrow();
      expect(await recorded(client)).toEqual([]);
      for (const table of [...TABLES, 'created_before_failure'])
        expect(await tableExists(client, table)).toBe(false);

      // The database is still usable: the good migrations apply afterwards.
      expect(await migrate(client, all)).toEqual(all.map((m) => m.name));
    });
  });

  it('a failing new migration on a migrated database leaves it as it was', async () => {
    await withClient(await open(), async (client) => {
      const good = migration('9003_good.sql', 'CREATE TABLE good_by_test (id integer);');
      const broken = migration('9004_broken.sql', 'CREATE TABLE broken_by_test (id integer); SELECT 1/0;');
      await expect(migrate(client, [...all, good, broken])).rejects.toThrow();
      expect(await recorded(client)).toHaveLength(all.length);
      expect(await tableExists(client, 'good_by_test')).toBe(false);
      expect(await tableExists(client, 'broken_by_test')).toBe(false);
    });
  });
});

forEachStore('migration 0003: one canonical username (issue 11, finding 2)', (open) => {
  const all = testMigrations();
  const upTo0002 = all.filter((m) => m.name < '0003');

  async function addUser(client: SqlClient, userId: string, username: string): Promise<void> {
    await client.query(
      'INSERT INTO users (user_id, username, user_level, created_at) VALUES ($1, $2, 16, now())',
      [userId, username],
    );
  }

  it('fills the canonical key of existing rows, and the lookups then use it', async () => {
    await withClient(await open({ migrated: false }), async (client) => {
      await migrate(client, upTo0002);
      await addUser(client, 'u1', 'Straße');
      await addUser(client, 'u2', 'ＡＤＭＩＮ');
      await addUser(client, 'u3', 'ann');
      expect(await migrate(client, all)).toEqual(all.slice(upTo0002.length).map((m) => m.name));
      const { rows } = await client.query<{ user_id: string; username_key: string }>(
        'SELECT user_id, username_key FROM users ORDER BY user_id',
      );
      expect(rows).toEqual([
        { user_id: 'u1', username_key: 'strasse' },
        { user_id: 'u2', username_key: 'admin' },
        { user_id: 'u3', username_key: 'ann' },
      ]);
      const users = new SqlUserRepository(client);
      expect((await users.findByUsername('STRASSE'))?.userId).toBe('u1');
      expect((await users.findByUsername('admin'))?.userId).toBe('u2');
      // One account, one key: a near-duplicate cannot be added beside it.
      await expect(addUser(client, 'u4', 'strasse')).rejects.toThrow();
    });
  });

  it('refuses to go on when existing rows clash, naming every clash, and changes nothing', async () => {
    await withClient(await open({ migrated: false }), async (client) => {
      await migrate(client, upTo0002);
      await addUser(client, 'u1', 'Straße');
      await addUser(client, 'u2', 'strasse');
      await addUser(client, 'u3', 'Ann');
      await addUser(client, 'u4', 'ａｎｎ');
      await addUser(client, 'u5', 'bob');
      const error = await migrate(client, all).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UsernameClashError);
      const message = (error as Error).message;
      expect(message).toContain('"Straße" (user_id "u1") and "strasse" (user_id "u2")');
      expect(message).toContain('"Ann" (user_id "u3") and "ａｎｎ" (user_id "u4")');
      expect(message).not.toContain('bob');
      expect((await recorded(client)).map((m) => m.name)).toEqual(upTo0002.map((m) => m.name));
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'users' AND column_name = 'username_key'",
      );
      expect(rows[0]!.n).toBe(0);
      // Once the operator renames one of each, start-up goes on.
      await client.query("UPDATE users SET username = 'strasse2' WHERE user_id = 'u2'");
      await client.query("UPDATE users SET username = 'ann2' WHERE user_id = 'u4'");
      expect(await migrate(client, all)).toHaveLength(all.length - upTo0002.length);
    });
  });
});

describe.skipIf(!pgEnabled)('migrations, concurrent instances [postgres]', () => {
  it('two migrate calls on two pools against the same fresh schema both succeed, applying each once', async () => {
    const all = testMigrations();
    const first = await openTestPostgres({ migrated: false, poolSize: 2 });
    const second = connectPostgres(first.connectionString, 2);
    try {
      const results = await Promise.all([migrate(first, all), migrate(second, all)]);
      const names = all.map((m) => m.name);
      expect([...results].sort((a, b) => b.length - a.length)).toEqual([names, []]);
      const { rows } = await first.query<{ name: string; n: number }>(
        'SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name ORDER BY name',
      );
      expect(rows).toEqual(names.map((name) => ({ name, n: 1 })));
      expect(await migrationsApplied(second, all)).toBe(true);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
