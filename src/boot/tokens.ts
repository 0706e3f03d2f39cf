import type { ServiceIdentifier } from 'inversify';
import type { KeptSecret } from '../adapters/crypto/kept-secret.js';
import type { HttpApp } from '../adapters/http/http-app.js';
import type { HttpCore } from '../adapters/http/http-core.js';
import type { Route } from '../adapters/http/route.js';
import type { Logger } from '../adapters/logging/logger.js';
import type { GatehouseMetrics } from '../adapters/metrics/gatehouse-metrics.js';
import type { ProbeResult, ProbeTarget } from '../adapters/openid/provider-probe.js';
import type { AdminAudit } from '../application/admin/admin-audit.js';
import type { AdminDirectory } from '../application/admin/admin-directory.js';
import type { AdminProviders } from '../application/admin/admin-providers.js';
import type { AdminUsers } from '../application/admin/admin-users.js';
import type { ImportUsers } from '../application/admin/import-users.js';
import type { ChangePassword } from '../application/change-password.js';
import type { LoginEvents, SessionCheckObserver } from '../application/login-events.js';
import type { Logout } from '../application/logout.js';
import type { FactorChangeAuthorisation } from '../application/mfa/factor-change-authorisation.js';
import type { MfaLoginCompletion } from '../application/mfa/mfa-login-completion.js';
import type { PasskeyLogin } from '../application/mfa/passkey-login.js';
import type { SecondFactorVerification } from '../application/mfa/second-factor-verification.js';
import type { WebAuthnCredentialRemoval } from '../application/mfa/webauthn-credential-removal.js';
import type { WebAuthnRegistration } from '../application/mfa/webauthn-registration.js';
import type { WebAuthnSecondFactor } from '../application/mfa/webauthn-second-factor.js';
import type { PasswordLogin } from '../application/password-login.js';
import type { Purger } from '../application/purger.js';
import type { SessionAuthenticator } from '../application/session-authenticator.js';
import type { SessionEnding } from '../application/session-ending.js';
import type { SessionIssuer } from '../application/session-issuer.js';
import type { SessionManagement } from '../application/session-management.js';
import type { SessionSettings } from '../application/session-settings.js';
import type { BackchannelLogout } from '../application/sso/backchannel-logout.js';
import type { ProviderDirectory } from '../application/sso/provider-directory.js';
import type { RegistryWatch } from '../application/sso/registry-watch.js';
import type { SsoLogin } from '../application/sso/sso-login.js';
import type { SsoLogout } from '../application/sso/sso-logout.js';
import type { SsoParts, SsoProviderParts } from '../application/sso/sso-providers.js';
import type { DeviceProofs } from '../domain/login/device-proofs.port.js';
import type { LoginThrottle } from '../domain/login/login-throttle.js';
import type { RecoveryCodeHasher } from '../domain/mfa/recovery-code-hasher.port.js';
import type { TotpAuthenticator } from '../domain/mfa/totp-authenticator.port.js';
import type { WebAuthnVerifier } from '../domain/mfa/webauthn-verifier.port.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { PasswordPolicy } from '../domain/password/password-policy.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { ProviderRegistry } from '../domain/sso/provider-registry.port.js';
import type { TokenSealer } from '../domain/sso/token-sealer.port.js';
import type { EndingStore } from '../domain/store.port.js';
import type { Config, SessionStoreName } from './config/config.js';
import type { Lifecycle } from './lifecycle.js';
import type { ServiceRole } from './service-role.js';

/** Every binding's token, in one place. A token and its interface share a name. */
export const TOKENS = {
  Config: Symbol.for('gatehouse.Config') as ServiceIdentifier<Config>,
  /** Where sessions live, as /readyz names it. */
  SessionStoreName: Symbol.for('gatehouse.SessionStoreName') as ServiceIdentifier<SessionStoreName>,
  Logger: Symbol.for('gatehouse.Logger') as ServiceIdentifier<Logger>,
  Clock: Symbol.for('gatehouse.Clock') as ServiceIdentifier<Clock>,
  Random: Symbol.for('gatehouse.Random') as ServiceIdentifier<Random>,
  Store: Symbol.for('gatehouse.Store') as ServiceIdentifier<EndingStore>,
  PasswordHasher: Symbol.for('gatehouse.PasswordHasher') as ServiceIdentifier<PasswordHasher>,
  PasswordPolicy: Symbol.for('gatehouse.PasswordPolicy') as ServiceIdentifier<PasswordPolicy>,
  DeviceProofs: Symbol.for('gatehouse.DeviceProofs') as ServiceIdentifier<DeviceProofs>,
  DeviceProofKey: Symbol.for('gatehouse.DeviceProofKey') as ServiceIdentifier<KeptSecret>,
  TotpAuthenticator: Symbol.for('gatehouse.TotpAuthenticator') as ServiceIdentifier<TotpAuthenticator>,
  /** Null without TOKEN_ENCRYPTION_KEY: TOTP enrolment is then refused (MFA_NOT_CONFIGURED). */
  TotpSecretSealer: Symbol.for('gatehouse.TotpSecretSealer') as ServiceIdentifier<TokenSealer | null>,
  RecoveryCodeKey: Symbol.for('gatehouse.RecoveryCodeKey') as ServiceIdentifier<KeptSecret>,
  RecoveryCodeHasher: Symbol.for('gatehouse.RecoveryCodeHasher') as ServiceIdentifier<RecoveryCodeHasher>,
  /** Null without a relying party id or origin: WebAuthn is then refused (MFA_NOT_CONFIGURED). */
  WebAuthnVerifier: Symbol.for('gatehouse.WebAuthnVerifier') as ServiceIdentifier<WebAuthnVerifier | null>,
  MfaLoginCompletion: Symbol.for('gatehouse.MfaLoginCompletion') as ServiceIdentifier<MfaLoginCompletion>,
  /**
   * The password check before any factor change: TOTP, recovery codes, WebAuthn credentials. Bound in
   * mfa-enrolment-module.ts; taken there and by webauthn-module.ts, hence here.
   */
  FactorChangeAuthorisation: Symbol.for(
    'gatehouse.FactorChangeAuthorisation',
  ) as ServiceIdentifier<FactorChangeAuthorisation>,
  SecondFactorVerification: Symbol.for(
    'gatehouse.SecondFactorVerification',
  ) as ServiceIdentifier<SecondFactorVerification>,
  /** The routes of a login's second step (mfa-login-module.ts), in the route table of http-module.ts. */
  MfaLoginRoutes: Symbol.for('gatehouse.MfaLoginRoutes') as ServiceIdentifier<Route[]>,
  // WebAuthn (webauthn-module.ts): its use cases, and its routes for the HTTP table.
  WebAuthnRegistration: Symbol.for(
    'gatehouse.WebAuthnRegistration',
  ) as ServiceIdentifier<WebAuthnRegistration>,
  WebAuthnCredentialRemoval: Symbol.for(
    'gatehouse.WebAuthnCredentialRemoval',
  ) as ServiceIdentifier<WebAuthnCredentialRemoval>,
  PasskeyLogin: Symbol.for('gatehouse.PasskeyLogin') as ServiceIdentifier<PasskeyLogin>,
  WebAuthnSecondFactor: Symbol.for(
    'gatehouse.WebAuthnSecondFactor',
  ) as ServiceIdentifier<WebAuthnSecondFactor>,
  WebAuthnRoutes: Symbol.for('gatehouse.WebAuthnRoutes') as ServiceIdentifier<Route[]>,
  LoginThrottle: Symbol.for('gatehouse.LoginThrottle') as ServiceIdentifier<LoginThrottle>,
  LoginEvents: Symbol.for('gatehouse.LoginEvents') as ServiceIdentifier<LoginEvents>,
  SessionCheckObserver: Symbol.for(
    'gatehouse.SessionCheckObserver',
  ) as ServiceIdentifier<SessionCheckObserver>,
  /** Null when the instance keeps no metrics (a container built without them). */
  Metrics: Symbol.for('gatehouse.Metrics') as ServiceIdentifier<GatehouseMetrics | null>,
  SessionSettings: Symbol.for('gatehouse.SessionSettings') as ServiceIdentifier<SessionSettings>,
  SessionIssuer: Symbol.for('gatehouse.SessionIssuer') as ServiceIdentifier<SessionIssuer>,
  SessionAuthenticator: Symbol.for(
    'gatehouse.SessionAuthenticator',
  ) as ServiceIdentifier<SessionAuthenticator>,
  PasswordLogin: Symbol.for('gatehouse.PasswordLogin') as ServiceIdentifier<PasswordLogin>,
  SessionEnding: Symbol.for('gatehouse.SessionEnding') as ServiceIdentifier<SessionEnding>,
  AdminUsers: Symbol.for('gatehouse.AdminUsers') as ServiceIdentifier<AdminUsers>,
  AdminDirectory: Symbol.for('gatehouse.AdminDirectory') as ServiceIdentifier<AdminDirectory>,
  AdminProviders: Symbol.for('gatehouse.AdminProviders') as ServiceIdentifier<AdminProviders>,
  ImportUsers: Symbol.for('gatehouse.ImportUsers') as ServiceIdentifier<ImportUsers>,
  AdminAudit: Symbol.for('gatehouse.AdminAudit') as ServiceIdentifier<AdminAudit>,
  /** `provider test`: fetches a provider's discovery and keys (the OpenID client, loaded when called). */
  ProviderProbe: Symbol.for('gatehouse.ProviderProbe') as ServiceIdentifier<
    (target: ProbeTarget) => Promise<ProbeResult>
  >,
  Logout: Symbol.for('gatehouse.Logout') as ServiceIdentifier<Logout>,
  ChangePassword: Symbol.for('gatehouse.ChangePassword') as ServiceIdentifier<ChangePassword>,
  SessionManagement: Symbol.for('gatehouse.SessionManagement') as ServiceIdentifier<SessionManagement>,
  Purger: Symbol.for('gatehouse.Purger') as ServiceIdentifier<Purger>,
  SsoParts: Symbol.for('gatehouse.SsoParts') as ServiceIdentifier<SsoParts>,
  /** Null in a container given no registry (then no provider is registered). */
  ProviderRegistry: Symbol.for('gatehouse.ProviderRegistry') as ServiceIdentifier<ProviderRegistry | null>,
  ProviderDirectory: Symbol.for('gatehouse.ProviderDirectory') as ServiceIdentifier<
    ProviderDirectory<SsoProviderParts>
  >,
  RegistryWatch: Symbol.for('gatehouse.RegistryWatch') as ServiceIdentifier<RegistryWatch>,
  SsoLogin: Symbol.for('gatehouse.SsoLogin') as ServiceIdentifier<SsoLogin>,
  SsoLogout: Symbol.for('gatehouse.SsoLogout') as ServiceIdentifier<SsoLogout>,
  BackchannelLogout: Symbol.for('gatehouse.BackchannelLogout') as ServiceIdentifier<BackchannelLogout>,
  HttpCore: Symbol.for('gatehouse.HttpCore') as ServiceIdentifier<HttpCore>,
  /** The apps the facade built (bound once built): the lifecycle's listeners serve them. */
  HttpApps: Symbol.for('gatehouse.HttpApps') as ServiceIdentifier<{
    app: HttpApp;
    metricsApp: HttpApp | null;
  }>,
  /** Which process this container serves: what its lifecycle starts besides the core steps. */
  ServiceRole: Symbol.for('gatehouse.ServiceRole') as ServiceIdentifier<ServiceRole>,
  /** Start-up and shutdown work, one ordered list of steps (lifecycle-module.ts). */
  Lifecycle: Symbol.for('gatehouse.Lifecycle') as ServiceIdentifier<Lifecycle>,
} as const;
