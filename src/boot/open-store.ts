import { join } from 'node:path';
import type { Logger } from '../adapters/logging/logger.js';
import { loadMigrations, type Migration, migrate } from '../adapters/sql/migrator.js';
import type { SqlClient } from '../adapters/sql/sql-client.js';
import { SqlStore } from '../adapters/sql/sql-store.js';
import type { Config } from './config/config.js';
import { projectRoot } from './project-root.js';

export function bundledMigrations(): Migration[] {
  return loadMigrations(join(projectRoot(), 'migrations'));
}

/** PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite in DATA_DIR. */
export async function openSqlClient(config: Config, logger?: Logger): Promise<SqlClient> {
  // Each engine's code is loaded only where it is used.
  if (config.database.kind === 'postgres') {
    const { PgSqlClient } = await import('../adapters/sql/pg-sql-client.js');
    return new PgSqlClient({
      connectionString: config.database.url,
      poolSize: config.database.poolSize,
      connectionTimeoutMs: config.database.queueTimeoutMs,
      statementTimeoutMs: config.database.statementTimeoutMs,
      onPoolError: (error) => logger?.warn({ err: error }, 'idle database connection lost'),
    });
  }
  const { PgliteSqlClient } = await import('../adapters/sql/pglite-sql-client.js');
  return PgliteSqlClient.open(config.database.dataDir);
}

/** Opens the store and applies pending migrations (under the migration advisory lock). */
export async function openStore(
  config: Config,
  logger?: Logger,
  options: { client?: SqlClient } = {},
): Promise<{ store: SqlStore; applied: string[] }> {
  const client = options.client ?? (await openSqlClient(config, logger));
  const migrations = bundledMigrations();
  try {
    const applied = await migrate(client, migrations);
    return { store: new SqlStore(client, migrations), applied };
  } catch (error) {
    await client.close();
    throw error;
  }
}
