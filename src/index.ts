// The package entry for product teams embedding Gatehouse in their own Koa service.

// The guard for product routes checks the Origin of unsafe methods too (CSRF), then the session.
export {
  type EmbeddedSessionGuardOptions as SessionGuardOptions,
  embeddedSessionGuard as sessionGuard,
} from './adapters/http/embedded-session-guard.js';
export { listen, type RunningServer } from './adapters/http/server.js';
export type { GatehouseState } from './adapters/http/state.js';
export type { AuthenticatedSession, SessionView } from './application/session-authenticator.js';
export { type Config, ConfigError, loadConfig } from './config/config.js';
export type { Ids } from './domain/profile/ids.js';
export type { Profile } from './domain/profile/profile.js';
export { DomainError, type ErrorCode } from './domain/shared/domain-error.js';
export type { ValidatedTokenSet } from './domain/sso/openid-provider.port.js';
export { SsoInterpretationError } from './domain/sso/sso-interpretation-error.js';
export type {
  SsoIdentity,
  SsoInterpreterSettings,
  SsoTokenInterpreter,
  SsoTokenInterpreterFactory,
} from './domain/sso/sso-token-interpreter.port.js';
export type { User } from './domain/user/user.js';
export { createGatehouse, type Gatehouse, type GatehouseOptions } from './gatehouse.js';
