import { describe, expect, it } from 'vitest';
import {
  type Migration,
  MigrationChecksumError,
  migrate,
  migrationsApplied,
} from '../../src/adapters/sql/migrator.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
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
