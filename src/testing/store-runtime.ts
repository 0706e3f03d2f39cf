/**
 * `@gatehouse-auth/gatehouse-testing/store-runtime`: what a session store needs at run time, where
 * the service loads it (SESSION_STORE_MODULE) and no vitest is installed: the port types, the
 * helpers a store calls, and `DomainError` (an outage is `SERVICE_UNAVAILABLE`; the service
 * recognises this copy of the class by its code). The contract suites are `/stores`.
 */
export type {
  ThrottlePurge,
  ThrottleReservation,
  ThrottleStore,
  ThrottleStoreCapabilities,
} from '../domain/login/throttle-store.port.js';
export {
  EXPIRED_SESSION_GRACE_MS,
  type LoginMethod,
  type SessionRecord,
  type SessionWithUser,
  type SsoOrigin,
  type SsoSessionData,
  type StoredSession,
  sessionKeepUntil,
  withoutProviderTokens,
} from '../domain/session/session.js';
export type { SessionAuth, SessionStage } from '../domain/session/session-auth.js';
export type { SessionLookup } from '../domain/session/session-lookup.port.js';
export type { SessionSide } from '../domain/session/session-side.port.js';
export type {
  EndAllSessions,
  SessionPage,
  SessionPaging,
  SessionPurge,
  SessionStore,
  SessionStoreCapabilities,
} from '../domain/session/session-store.port.js';
export { DomainError, type ErrorCode } from '../domain/shared/domain-error.js';
