import type { AuditLog } from './audit/audit-log.port.js';
import type { ThrottleStore } from './login/throttle-store.port.js';
import type { SessionLookup } from './session/session-lookup.port.js';
import type { SessionStore } from './session/session-store.port.js';
import type { ServiceSecrets } from './shared/service-secrets.port.js';
import type { SeenLogoutTokens } from './sso/seen-logout-tokens.port.js';
import type { DirectoryRepository, UserRepository } from './user/user-repository.port.js';

export interface Repositories {
  users: UserRepository;
  sessions: SessionStore;
  throttle: ThrottleStore;
  directory: DirectoryRepository;
  audit: AuditLog;
  logoutTokens: SeenLogoutTokens;
  secrets: ServiceSecrets;
}

/**
 * The repositories plus a unit of work: writes that belong together (a password change and the
 * sessions it ends, an import file) go through `transaction`. On the SQL store the unit is one
 * transaction; when sessions live in a store of their own, the unit is the SQL transaction plus
 * the ordering and compensation rule of docs/stores.md ("Why: no transaction spans two stores"): the
 * session store needs no transaction to be correct.
 */
export interface Store extends Repositories, SessionLookup {
  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Readiness: the store answers and its schema is current. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}
