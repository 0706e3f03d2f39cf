import type { Logger } from '../adapters/logging/logger.js';
import type { SqlClient } from '../adapters/sql/sql-client.js';
import type { SqlStore } from '../adapters/sql/sql-store.js';
import { SqlUserLookup } from '../adapters/sql/sql-user-lookup.js';
import type { Config } from '../config/config.js';
import type { Store } from '../domain/store.port.js';
import { openRedisSessionSide } from './open-session-side.js';
import { openStore } from './open-store.js';
import { SplitStore } from './split-store.js';

/**
 * The store the service uses, opened the same way for the service and the `gatehouse` command
 * (so an administrator's command reaches the sessions wherever they live): the database,
 * migrated, and with SESSION_STORE=redis the database with sessions and throttling in Redis.
 */
export async function openServiceStore(
  config: Config,
  logger?: Logger,
  options: { client?: SqlClient } = {},
): Promise<{ store: Store; database: SqlStore; applied: string[] }> {
  const { store: database, applied } = await openStore(config, logger, options);
  if (config.sessionStore.kind === 'sql') return { store: database, database, applied };
  try {
    const side = await openRedisSessionSide(config, logger);
    return { store: new SplitStore(database, side, new SqlUserLookup(database.client)), database, applied };
  } catch (error) {
    await database.close();
    throw error;
  }
}
