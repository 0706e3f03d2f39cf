import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fillUsernameKeys } from './migration-steps/canonical-usernames.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

/** Work a migration's SQL cannot do (the canonical username is computed by the domain), run after it. */
export type MigrationStep = (tx: SqlExecutor) => Promise<void>;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
  /** Runs after `sql`, in the same transaction. */
  step?: MigrationStep;
}

/** The data steps of the bundled migrations, by file name. */
export const MIGRATION_STEPS: Readonly<Record<string, MigrationStep>> = {
  '0003_username_key.sql': fillUsernameKeys,
};

/** Arbitrary constant for pg_advisory_xact_lock: "gatehous" in ASCII. */
const MIGRATION_LOCK_KEY = 0x67617465686f7573n;

export class MigrationChecksumError extends Error {
  constructor(readonly migration: string) {
    super(
      `Migration ${migration} was changed after it was applied (checksum differs). ` +
        'Restore the original file and add a new migration instead.',
    );
    this.name = 'MigrationChecksumError';
  }
}

export function loadMigrations(
  dir: string,
  steps: Readonly<Record<string, MigrationStep>> = MIGRATION_STEPS,
): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const step = steps[name];
      return step ? { name, sql, checksum, step } : { name, sql, checksum };
    });
}

/**
 * Applies pending migrations in order, in one transaction under an advisory lock, so instances
 * starting together apply each migration once and a failure leaves nothing half-applied.
 * A changed, already-applied file stops start-up. Returns the names applied now.
 */
export async function migrate(client: SqlClient, migrations: Migration[]): Promise<string[]> {
  return client.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY.toString()})`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await tx.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations',
    );
    const applied = new Map(rows.map((row) => [row.name, row.checksum]));
    const appliedNow: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) throw new MigrationChecksumError(migration.name);
        continue;
      }
      await tx.exec(migration.sql);
      await migration.step?.(tx);
      await tx.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [
        migration.name,
        migration.checksum,
      ]);
      appliedNow.push(migration.name);
    }
    return appliedNow;
  });
}

/** For /readyz: true when every known migration is recorded. */
export async function migrationsApplied(client: SqlClient, migrations: Migration[]): Promise<boolean> {
  const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations');
  const names = new Set(rows.map((row) => row.name));
  return migrations.every((migration) => names.has(migration.name));
}
