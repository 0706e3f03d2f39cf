import { ContainerModule } from 'inversify';
import { ChangePassword } from '../application/change-password.js';
import type { LoginEvents, SessionCheckObserver } from '../application/login-events.js';
import { Logout } from '../application/logout.js';
import { PasswordLogin } from '../application/password-login.js';
import { SessionAuthenticator } from '../application/session-authenticator.js';
import { SessionIssuer } from '../application/session-issuer.js';
import type { SessionSettings } from '../application/session-settings.js';
import type { Config } from '../config/config.js';
import { LoginThrottle } from '../domain/login/login-throttle.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { PasswordPolicy } from '../domain/password/password-policy.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import { ReportingLoginThrottle } from './reporting-login-throttle.js';
import { TOKENS } from './tokens.js';

/** Use cases: plain classes, no decorators, bound with explicit tokens. */
export const applicationModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.SessionSettings)
    .toResolvedValue(
      (config: Config): SessionSettings => ({
        idleTimeoutS: config.session.idleTimeoutS,
        absoluteTimeoutS: config.session.absoluteTimeoutS,
        provideBackendInfo: config.provideBackendInfo,
        passwordMaxAgeDays: config.password.maxAgeDays,
      }),
      [TOKENS.Config],
    )
    .inSingletonScope();
  bind(TOKENS.LoginThrottle)
    .toResolvedValue(
      (store: Store, config: Config) => new LoginThrottle(store.throttle, config.throttle),
      [TOKENS.Store, TOKENS.Config],
    )
    .inSingletonScope();
  bind(TOKENS.SessionIssuer)
    .toResolvedValue(
      (clock: Clock, random: Random, settings: SessionSettings) => new SessionIssuer(clock, random, settings),
      [TOKENS.Clock, TOKENS.Random, TOKENS.SessionSettings],
    )
    .inSingletonScope();
  bind(TOKENS.SessionAuthenticator)
    .toResolvedValue(
      (store: Store, clock: Clock, settings: SessionSettings, checks: SessionCheckObserver) =>
        new SessionAuthenticator(store, clock, settings, checks),
      [TOKENS.Store, TOKENS.Clock, TOKENS.SessionSettings, TOKENS.SessionCheckObserver],
    )
    .inSingletonScope();
  bind(TOKENS.PasswordLogin)
    .toResolvedValue(
      (
        store: Store,
        hasher: PasswordHasher,
        config: Config,
        issuer: SessionIssuer,
        clock: Clock,
        events: LoginEvents,
      ) => {
        const throttle = new ReportingLoginThrottle(store.throttle, config.throttle, () =>
          events.loginThrottled?.({ method: 'password', operation: 'login' }),
        );
        return new PasswordLogin(store, hasher, throttle, issuer, clock, events);
      },
      [
        TOKENS.Store,
        TOKENS.PasswordHasher,
        TOKENS.Config,
        TOKENS.SessionIssuer,
        TOKENS.Clock,
        TOKENS.LoginEvents,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.Logout)
    .toResolvedValue(
      (store: Store, events: LoginEvents) => new Logout(store, events),
      [TOKENS.Store, TOKENS.LoginEvents],
    )
    .inSingletonScope();
  bind(TOKENS.ChangePassword)
    .toResolvedValue(
      (
        store: Store,
        hasher: PasswordHasher,
        policy: PasswordPolicy,
        config: Config,
        issuer: SessionIssuer,
        clock: Clock,
        events: LoginEvents,
      ) => {
        const throttle = new ReportingLoginThrottle(store.throttle, config.throttle, () =>
          events.loginThrottled?.({ method: 'password', operation: 'password_change' }),
        );
        return new ChangePassword(store, hasher, policy, throttle, issuer, clock, events);
      },
      [
        TOKENS.Store,
        TOKENS.PasswordHasher,
        TOKENS.PasswordPolicy,
        TOKENS.Config,
        TOKENS.SessionIssuer,
        TOKENS.Clock,
        TOKENS.LoginEvents,
      ],
    )
    .inSingletonScope();
});
