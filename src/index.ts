// The package entry for product teams embedding Gatehouse in their own service. The guards for
// their own routes are `gatehouseSession` in `gatehouse/koa`, `gatehouse/express` and
// `gatehouse/fastify`, one per framework (none here: each needs its framework installed).

export type { HttpApp, HttpTransport } from './adapters/http/http-app.js';
export { listen, type RunningServer } from './adapters/http/server.js';
export type { GatehouseSessionOptions, SessionGuardSource } from './adapters/http/session-guard.js';
export type { GatehouseState } from './adapters/http/state.js';
export type { AuthenticatedSession, SessionView } from './application/session-authenticator.js';
export { type Config, ConfigError, loadConfig } from './boot/config/config.js';
export {
  createGatehouse,
  type Gatehouse,
  type GatehouseAdministration,
  type GatehouseOptions,
} from './boot/gatehouse.js';
export type { GatehouseUser } from './client/gatehouse-user.js';
export type { Ids } from './domain/profile/ids.js';
export type { Profile } from './domain/profile/profile.js';
export type { SessionSide } from './domain/session/session-side.port.js';
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
