import 'reflect-metadata';
import { Container } from 'inversify';
import { AesTokenSealer } from '../adapters/crypto/aes-token-sealer.js';
import { nodeRandom } from '../adapters/crypto/node-random.js';
import { loggedLoginEvents } from '../adapters/logging/logged-login-events.js';
import type { Logger } from '../adapters/logging/logger.js';
import type { GatehouseMetrics } from '../adapters/metrics/gatehouse-metrics.js';
import { ignoredSessionChecks, type LoginEvents } from '../application/login-events.js';
import type { SsoParts } from '../application/sso/sso-providers.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import { type Clock, systemClock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { ProviderRegistry } from '../domain/sso/provider-registry.port.js';
import type { EndingStore } from '../domain/store.port.js';
import { applicationModule } from './application-module.js';
import { type Config, type SessionStoreName, sessionStoreName } from './config/config.js';
import { httpModule } from './http-module.js';
import { lifecycleModule } from './lifecycle-module.js';
import { mfaEnrolmentModule } from './mfa-enrolment-module.js';
import { mfaLoginModule } from './mfa-login-module.js';
import { mfaModule } from './mfa-module.js';
import { passwordModule } from './password-module.js';
import type { ServiceRole } from './service-role.js';
import { ssoModule } from './sso-module.js';
import { TOKENS } from './tokens.js';
import { webAuthnModule } from './webauthn-module.js';

export interface ContainerParts {
  config: Config;
  logger: Logger;
  store: EndingStore;
  /** Where the store keeps sessions, when not where the configuration says (an embedder's store). */
  sessionStoreName?: SessionStoreName;
  clock?: Clock;
  random?: Random;
  /** Tests may pass a cheaper hasher; production uses argon2id at the configured cost. */
  passwordHasher?: PasswordHasher;
  loginEvents?: LoginEvents;
  /** Built by createSsoParts (async, at start-up); without it, no provider at all. */
  sso?: SsoParts;
  /** The customers' providers (contract 6a); without it, none is registered. */
  providerRegistry?: ProviderRegistry;
  /** This instance's Prometheus metrics; without them nothing is counted and /metrics is absent. */
  metrics?: GatehouseMetrics | null;
  /** What this container's lifecycle starts besides the core steps; default: an embedder's. */
  role?: ServiceRole;
}

/** A container built without SSO parts: no environment provider, and none can be built. */
const NO_SSO: SsoParts = {
  environment: null,
  sealer: AesTokenSealer.random(),
  build: async (registered) => {
    throw new Error(`provider "${registered.id}" cannot be built: this container has no SSO parts`);
  },
};

/**
 * The composition root: the only place that knows which adapter serves which port. The service
 * (main.ts), the embedding facade (gatehouse.ts) and the `gatehouse` command build it alike.
 */
export function buildContainer(parts: ContainerParts): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(parts.config);
  container.bind(TOKENS.Logger).toConstantValue(parts.logger);
  container.bind(TOKENS.Store).toConstantValue(parts.store);
  container
    .bind(TOKENS.SessionStoreName)
    .toConstantValue(parts.sessionStoreName ?? sessionStoreName(parts.config));
  container.bind(TOKENS.Clock).toConstantValue(parts.clock ?? systemClock);
  container.bind(TOKENS.Random).toConstantValue(parts.random ?? nodeRandom);
  const loginEvents = parts.loginEvents ?? loggedLoginEvents(parts.logger);
  container.bind(TOKENS.LoginEvents).toConstantValue(parts.metrics?.loginEvents(loginEvents) ?? loginEvents);
  container
    .bind(TOKENS.SessionCheckObserver)
    .toConstantValue(parts.metrics?.sessionChecks ?? ignoredSessionChecks);
  container.bind(TOKENS.Metrics).toConstantValue(parts.metrics ?? null);
  container.bind(TOKENS.SsoParts).toConstantValue(parts.sso ?? NO_SSO);
  container.bind(TOKENS.ServiceRole).toConstantValue(parts.role ?? { kind: 'embedded' });
  container.bind(TOKENS.ProviderRegistry).toConstantValue(parts.providerRegistry ?? null);
  if (parts.passwordHasher) container.bind(TOKENS.PasswordHasher).toConstantValue(parts.passwordHasher);
  container.load(
    passwordModule,
    mfaModule,
    mfaLoginModule,
    mfaEnrolmentModule,
    webAuthnModule,
    applicationModule,
    ssoModule,
    httpModule,
    lifecycleModule,
  );
  return container;
}
