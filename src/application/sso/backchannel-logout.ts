import type { AddressThrottle } from '../../domain/login/address-throttle.js';
import { type Clock, systemClock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { SessionEnding } from '../session-ending.js';
import { logoutTokenOrigin } from './logout-token-origin.js';
import type { SsoProviders } from './sso-providers.js';

/**
 * OpenID Connect Back-Channel Logout 1.0 receiver: a provider posts a signed logout token naming a
 * provider session (`sid`) or a user (`sub`); every matching local SSO session made through that
 * provider ends. The token's `iss` and `aud` name the provider (contract 6a); only its keys verify
 * it, and another provider's sessions are never touched, even under the same issuer. The
 * provider's `sid` is kept with each session for exactly this (Keycloak #12142's lesson).
 *
 * The endpoint takes no authentication but the token's signature, so anyone may post to it: each
 * client address has a budget of failed tokens (a place taken before any signature check, given
 * back when the token ends sessions), and a flood of forged tokens is refused 429 before it costs
 * any. Successes are free, so a provider ending many sessions at once is never slowed.
 */
export class BackchannelLogout {
  constructor(
    private readonly ending: SessionEnding,
    private readonly providers: SsoProviders,
    private readonly clock: Clock = systemClock,
    /** Failed logout tokens per client address; none when not given. */
    private readonly throttle: AddressThrottle | null = null,
  ) {}

  async execute(logoutToken: string, client?: { clientAddress: string | null }): Promise<number> {
    const ticket = await this.throttle?.reserve(client?.clientAddress ?? null, this.clock.now());
    const ended = await this.endSessions(logoutToken, client);
    await this.throttle?.succeeded(ticket ?? null);
    return ended;
  }

  private async endSessions(logoutToken: string, client?: { clientAddress: string | null }): Promise<number> {
    const origin = logoutTokenOrigin(logoutToken);
    const candidates = origin ? this.providers.forLogoutToken(origin.issuer, origin.audiences) : [];
    const chosen = candidates[0];
    if (!chosen)
      throw new DomainError('SSO_INVALID', 'The logout token names no provider this service serves.');
    const claims = await chosen.parts.provider.validateLogoutToken(logoutToken);
    // Both when the token names both: a session must match its sid and its sub.
    const by = {
      ...(claims.sid ? { sid: claims.sid } : {}),
      ...(claims.subject ? { subject: claims.subject } : {}),
    };
    // The token's first use, the sessions it ends and their audit records are written together: a
    // replay is refused, and a failure leaves the token usable again.
    const ended = await this.ending.unit(async (repositories, end) => {
      const now = this.clock.now();
      if (
        !(await repositories.logoutTokens.firstUse(claims.issuer, claims.tokenId, claims.acceptedUntil, now))
      ) {
        throw new DomainError('SSO_INVALID', 'This logout token was already used.');
      }
      const ended = [];
      // Two registrations of one client (same issuer and client id) are one provider's sessions.
      for (const { rules } of candidates) {
        const origin = { provider: rules.id, issuer: claims.issuer };
        ended.push(
          ...(await end.bySso(origin, by, {
            reason: 'backchannel_logout',
            clientAddress: client?.clientAddress ?? null,
          })),
        );
      }
      return ended;
    });
    return ended.length;
  }
}
