import type { Logger } from '../adapters/logging/logger.js';
import type { SqlClient } from '../adapters/sql/sql-client.js';
import type { SqlStore } from '../adapters/sql/sql-store.js';
import { SqlUserLookup } from '../adapters/sql/sql-user-lookup.js';
import { SplitStore } from '../adapters/stores/split-store.js';
import type { SessionSide } from '../domain/session/session-side.port.js';
import { type Clock, systemClock } from '../domain/shared/clock.port.js';
import type { EndingStore } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { openSessionSide } from './open-session-side.js';
import { openStore } from './open-store.js';

/**
 * The store the service uses, opened the same way for the service and the `gatehouse` command
 * (so an administrator's command reaches the sessions wherever they live): the database, migrated,
 * with sessions and throttling where SESSION_STORE says (the database, memory, Redis), or in the
 * session store an embedder gives (`sessionSide`, docs/stores.md).
 */
export async function openServiceStore(
  config: Config,
  logger?: Logger,
  options: { client?: SqlClient; sessionSide?: SessionSide; clock?: Clock } = {},
): Promise<{ store: EndingStore; database: SqlStore; applied: string[] }> {
  const { store: database, applied } = await openStore(config, logger, options);
  try {
    const side = options.sessionSide ?? (await openSessionSide(config, options.clock ?? systemClock, logger));
    if (!side) return { store: database, database, applied };
    return { store: new SplitStore(database, side, new SqlUserLookup(database.client)), database, applied };
  } catch (error) {
    await database.close();
    throw error;
  }
}
