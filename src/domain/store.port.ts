import type { AuditLog } from './audit/audit-log.port.js';
import type { ThrottleStore } from './login/throttle-store.port.js';
import type { SessionLookup } from './session/session-lookup.port.js';
import type { SessionRepository } from './session/session-repository.port.js';
import type { ServiceSecrets } from './shared/service-secrets.port.js';
import type { SeenLogoutTokens } from './sso/seen-logout-tokens.port.js';
import type { DirectoryRepository, UserRepository } from './user/user-repository.port.js';

export interface Repositories {
  users: UserRepository;
  sessions: SessionRepository;
  throttle: ThrottleStore;
  directory: DirectoryRepository;
  audit: AuditLog;
  logoutTokens: SeenLogoutTokens;
  secrets: ServiceSecrets;
}

/**
 * The repositories plus a unit of work: writes that belong together (a password change and the
 * sessions it ends, an import file) go through `transaction`, so nothing is left half-written.
 */
export interface Store extends Repositories, SessionLookup {
  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Readiness: the store answers and its schema is current. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}
