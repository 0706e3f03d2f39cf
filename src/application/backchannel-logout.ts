import { type Clock, systemClock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { OpenIdProvider } from '../domain/sso/openid-provider.port.js';
import type { SessionEnding } from './session-ending.js';

/**
 * OpenID Connect Back-Channel Logout 1.0 receiver: the provider posts a signed logout token
 * naming a provider session (`sid`) or a user (`sub`); every matching local SSO session ends.
 * The provider's `sid` is kept with each session for exactly this (Keycloak #12142's lesson).
 */
export class BackchannelLogout {
  constructor(
    private readonly ending: SessionEnding,
    private readonly provider: OpenIdProvider,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(logoutToken: string, client?: { clientAddress: string | null }): Promise<number> {
    const claims = await this.provider.validateLogoutToken(logoutToken);
    // Both when the token names both: a session must match its sid and its sub (issue 14, finding 8).
    const by = {
      ...(claims.sid ? { sid: claims.sid } : {}),
      ...(claims.subject ? { subject: claims.subject } : {}),
    };
    // The token's first use, the sessions it ends and their audit records are written together: a
    // replay (issue 11, finding 10) is refused, and a failure leaves the token usable again.
    const ended = await this.ending.unit(async (repositories, end) => {
      const now = this.clock.now();
      if (
        !(await repositories.logoutTokens.firstUse(claims.issuer, claims.tokenId, claims.acceptedUntil, now))
      ) {
        throw new DomainError('SSO_INVALID', 'This logout token was already used.');
      }
      return end.bySso(claims.issuer, by, {
        reason: 'backchannel_logout',
        clientAddress: client?.clientAddress ?? null,
      });
    });
    const count = ended.length;
    return count;
  }
}
