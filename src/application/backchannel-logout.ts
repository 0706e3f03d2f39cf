import { auditEvent } from '../domain/audit/audit-event.js';
import { type Clock, systemClock } from '../domain/shared/clock.port.js';
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
    const by = claims.sid ? { sid: claims.sid } : claims.subject ? { subject: claims.subject } : {};
    // The sessions end and their audit records (one per session) are written together.
    const ended = await this.store.transaction(async (repositories) => {
      const sessions = await repositories.sessions.deleteBySsoReturning(claims.issuer, by);
      const now = this.clock.now();
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
