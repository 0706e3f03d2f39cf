// The package entry for product teams embedding Gatehouse in their own Koa service.
export { createGatehouse, type Gatehouse, type GatehouseOptions } from './gatehouse.js';
export { loadConfig, ConfigError, type Config } from './config/config.js';
export { sessionGuard, type SessionGuardOptions } from './adapters/http/session-guard.js';
export type { GatehouseState } from './adapters/http/state.js';
export { listen, type RunningServer } from './adapters/http/server.js';
export type { AuthenticatedSession, SessionView } from './application/session-authenticator.js';
export { DomainError, type ErrorCode } from './domain/shared/domain-error.js';
export type { Ids } from './domain/profile/ids.js';
export type { Profile } from './domain/profile/profile.js';
export type { User } from './domain/user/user.js';
export type {
  SsoIdentity,
  SsoInterpreterSettings,
  SsoTokenInterpreter,
  SsoTokenInterpreterFactory,
} from './domain/sso/sso-token-interpreter.port.js';
export type { ValidatedTokenSet } from './domain/sso/openid-provider.port.js';
export { SsoInterpretationError } from './domain/sso/sso-interpretation-error.js';
