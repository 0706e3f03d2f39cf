import type { AuditLog } from './audit/audit-log.port.js';
import type { ThrottleStore } from './login/throttle-store.port.js';
import type { MfaFactorRepository } from './mfa/mfa-factor-repository.port.js';
import type { SessionLookup } from './session/session-lookup.port.js';
import type { SessionKeeping, SessionStore } from './session/session-store.port.js';
import type { ServiceSecrets } from './shared/service-secrets.port.js';
import type { SeenLogoutTokens } from './sso/seen-logout-tokens.port.js';
import type { DirectoryRepository, UserRepository } from './user/user-repository.port.js';

/**
 * What a plain unit of work gets: sessions it may create, find, touch and list, never end
 * (`SessionKeeping`). Ending a session is `SessionEnding`'s alone (its audit record, event, metric
 * and log line can then never disagree), and the type says so: a use case that tries to delete
 * through these repositories does not compile.
 */
export interface Repositories {
  users: UserRepository;
  sessions: SessionKeeping;
  throttle: ThrottleStore;
  directory: DirectoryRepository;
  audit: AuditLog;
  logoutTokens: SeenLogoutTokens;
  secrets: ServiceSecrets;
  /** Second factors: kept with the users (a factor goes with its user), never with the sessions. */
  mfa: MfaFactorRepository;
}

/** The repositories of a unit of work that may end sessions: `SessionEnding`'s. */
export interface EndingRepositories extends Repositories {
  sessions: SessionStore;
}

/**
 * The repositories plus a unit of work: writes that belong together (a password change and the
 * sessions it ends, an import file) go through `transaction`. On the SQL store the unit is one
 * transaction; when sessions live in a store of their own, the unit is the SQL transaction plus
 * the ordering and compensation rule of docs/stores.md ("Why: no transaction spans two stores"): the
 * session store needs no transaction to be correct. Neither its sessions nor a unit's end one.
 */
export interface Store extends Repositories, SessionLookup {
  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Readiness: the store answers and its schema is current. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The store as its adapters build it: a `Store` whose units may end sessions. The wiring room hands
 * it as such to `SessionEnding` only; every other use case takes it as a `Store`.
 */
export interface EndingStore extends Store {
  sessions: SessionStore;
  transaction<T>(work: (repositories: EndingRepositories) => Promise<T>): Promise<T>;
}
