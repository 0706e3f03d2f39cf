import type { SessionWithUser } from '../../domain/session/session.js';
import type { EndingRepositories, EndingStore } from '../../domain/store.port.js';
import { type Migration, migrationsApplied } from './migrator.js';
import { SqlAuditLog } from './sql-audit-log.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';
import { SqlMfaFactorRepository } from './sql-mfa-factor-repository.js';
import { SqlSeenLogoutTokens } from './sql-seen-logout-tokens.js';
import { SqlServiceSecrets } from './sql-service-secrets.js';
import { SqlSessionLookup } from './sql-session-lookup.js';
import { SqlSessionStore } from './sql-session-store.js';
import { SqlThrottleStore } from './sql-throttle-store.js';
import { SqlDirectoryRepository, SqlUserRepository } from './sql-user-repository.js';

function repositoriesOn(sql: SqlExecutor): EndingRepositories {
  return {
    users: new SqlUserRepository(sql),
    sessions: new SqlSessionStore(sql),
    throttle: new SqlThrottleStore(sql),
    directory: new SqlDirectoryRepository(sql),
    audit: new SqlAuditLog(sql),
    logoutTokens: new SqlSeenLogoutTokens(sql),
    secrets: new SqlServiceSecrets(sql),
    mfa: new SqlMfaFactorRepository(sql),
  };
}

/** The Store port over any SqlClient (pg or PGlite). */
export class SqlStore implements EndingStore {
  readonly users;
  readonly sessions;
  readonly throttle;
  readonly directory;
  readonly audit;
  readonly logoutTokens;
  readonly secrets;
  readonly mfa;
  private readonly lookup: SqlSessionLookup;

  constructor(
    readonly client: SqlClient,
    private readonly migrations: Migration[],
  ) {
    const repositories = repositoriesOn(client);
    this.lookup = new SqlSessionLookup(client);
    this.users = repositories.users;
    // Outside a transaction the session store offers the hot path's join as its fast lookup.
    this.sessions = new SqlSessionStore(client, this.lookup);
    this.throttle = repositories.throttle;
    this.directory = repositories.directory;
    this.audit = repositories.audit;
    this.logoutTokens = repositories.logoutTokens;
    this.secrets = repositories.secrets;
    this.mfa = repositories.mfa;
  }

  findSessionWithUser(tokenHash: string): Promise<SessionWithUser | null> {
    return this.lookup.findSessionWithUser(tokenHash);
  }

  transaction<T>(work: (repositories: EndingRepositories) => Promise<T>): Promise<T> {
    return this.client.transaction((tx) => work(repositoriesOn(tx)));
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
