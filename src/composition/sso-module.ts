import { ContainerModule } from 'inversify';
import { BackchannelLogout } from '../application/backchannel-logout.js';
import type { LoginEvents } from '../application/login-events.js';
import type { SessionEnding } from '../application/session-ending.js';
import type { SessionIssuer } from '../application/session-issuer.js';
import { SsoLogin } from '../application/sso-login.js';
import { SsoLogout } from '../application/sso-logout.js';
import type { Config } from '../config/config.js';
import { AddressThrottle } from '../domain/login/address-throttle.js';
import { ADDRESS_FAILURE_FACTOR } from '../domain/login/login-throttle.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Store } from '../domain/store.port.js';
import type { SsoParts } from './sso-parts.js';
import { TOKENS } from './tokens.js';

/** SSO use cases; each resolves to null when no OpenID provider is configured. */
export const ssoModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.SsoLogin)
    .toResolvedValue(
      (
        parts: SsoParts | null,
        store: Store,
        issuer: SessionIssuer,
        ending: SessionEnding,
        config: Config,
        events: LoginEvents,
        clock: Clock,
      ) =>
        parts
          ? new SsoLogin(
              store,
              parts.provider,
              parts.interpreter,
              parts.sealer,
              issuer,
              ending,
              {
                redirectUris: config.oidc?.redirectUris ?? [],
                userLevels: config.sso.userLevels,
                requirePkce: config.oidc?.requirePkce ?? false,
              },
              events,
              clock,
              new AddressThrottle(store.throttle, 'sso', {
                limit: config.throttle.maxFailures * ADDRESS_FAILURE_FACTOR,
                windowS: config.throttle.windowS,
              }),
            )
          : null,
      [
        TOKENS.SsoParts,
        TOKENS.Store,
        TOKENS.SessionIssuer,
        TOKENS.SessionEnding,
        TOKENS.Config,
        TOKENS.LoginEvents,
        TOKENS.Clock,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.SsoLogout)
    .toResolvedValue(
      (parts: SsoParts | null, store: Store, ending: SessionEnding, clock: Clock) =>
        parts ? new SsoLogout(store, ending, parts.provider, parts.interpreter, parts.sealer, clock) : null,
      [TOKENS.SsoParts, TOKENS.Store, TOKENS.SessionEnding, TOKENS.Clock],
    )
    .inSingletonScope();
  bind(TOKENS.BackchannelLogout)
    .toResolvedValue(
      (parts: SsoParts | null, ending: SessionEnding, clock: Clock) =>
        parts ? new BackchannelLogout(ending, parts.provider, clock) : null,
      [TOKENS.SsoParts, TOKENS.SessionEnding, TOKENS.Clock],
    )
    .inSingletonScope();
});
