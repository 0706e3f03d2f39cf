import type { Repositories, Store } from '../../domain/store.port.js';
import { type Migration, migrationsApplied } from './migrator.js';
import { SqlAuditLog } from './sql-audit-log.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';
import { SqlSeenLogoutTokens } from './sql-seen-logout-tokens.js';
import { SqlServiceSecrets } from './sql-service-secrets.js';
import { SqlSessionRepository } from './sql-session-repository.js';
import { SqlThrottleStore } from './sql-throttle-store.js';
import { SqlDirectoryRepository, SqlUserRepository } from './sql-user-repository.js';

function repositoriesOn(sql: SqlExecutor, options: { batchLookups: boolean }): Repositories {
  return {
    users: new SqlUserRepository(sql),
    sessions: new SqlSessionRepository(sql, options),
    throttle: new SqlThrottleStore(sql),
    directory: new SqlDirectoryRepository(sql),
    audit: new SqlAuditLog(sql),
    logoutTokens: new SqlSeenLogoutTokens(sql),
    secrets: new SqlServiceSecrets(sql),
  };
}

/** The Store port over any SqlClient (pg or PGlite). */
export class SqlStore implements Store {
  readonly users;
  readonly sessions;
  readonly throttle;
  readonly directory;
  readonly audit;
  readonly logoutTokens;
  readonly secrets;

  constructor(
    readonly client: SqlClient,
    private readonly migrations: Migration[],
  ) {
    const repositories = repositoriesOn(client, { batchLookups: true });
    this.users = repositories.users;
    this.sessions = repositories.sessions;
    this.throttle = repositories.throttle;
    this.directory = repositories.directory;
    this.audit = repositories.audit;
    this.logoutTokens = repositories.logoutTokens;
    this.secrets = repositories.secrets;
  }

  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.client.transaction((tx) => work(repositoriesOn(tx, { batchLookups: false })));
  }

  async isReady(): Promise<boolean> {
    try {
      return await migrationsApplied(this.client, this.migrations);
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
