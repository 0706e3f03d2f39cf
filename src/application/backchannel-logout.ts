import { auditEvent } from '../domain/audit/audit-event.js';
import { type Clock, systemClock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { OpenIdProvider } from '../domain/sso/openid-provider.port.js';
import type { Store } from '../domain/store.port.js';
import type { LoginEvents } from './login-events.js';

/**
 * OpenID Connect Back-Channel Logout 1.0 receiver: the provider posts a signed logout token
 * naming a provider session (`sid`) or a user (`sub`); every matching local SSO session ends.
 * The provider's `sid` is kept with each session for exactly this (Keycloak #12142's lesson).
 */
export class BackchannelLogout {
  constructor(
    private readonly store: Store,
    private readonly provider: OpenIdProvider,
    private readonly events: LoginEvents,
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
    const ended = await this.store.transaction(async (repositories) => {
      const now = this.clock.now();
      if (
        !(await repositories.logoutTokens.firstUse(claims.issuer, claims.tokenId, claims.acceptedUntil, now))
      ) {
        throw new DomainError('SSO_INVALID', 'This logout token was already used.');
      }
      const sessions = await repositories.sessions.deleteBySso(claims.issuer, by);
      for (const session of sessions) {
        await repositories.audit.record(
          auditEvent({
            occurredAt: now,
            event: 'session_revoked',
            reason: 'backchannel_logout',
            actor: 'provider',
            userId: session.userId,
            sessionHandle: session.handle,
            sessionCount: 1,
            method: session.method,
            clientAddress: client?.clientAddress ?? null,
          }),
        );
      }
      return sessions;
    });
    const count = ended.length;
    this.events.sessionEnded({ userId: claims.subject ?? '(by sid)', why: 'backchannel_logout', count });
    return count;
  }
}
