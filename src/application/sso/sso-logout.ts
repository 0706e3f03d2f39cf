import { auditEvent } from '../../domain/audit/audit-event.js';
import type { SessionRecord, SsoSessionData } from '../../domain/session/session.js';
import { hashSessionToken, isWellFormedSessionToken } from '../../domain/session/session-token.js';
import { type Clock, systemClock } from '../../domain/shared/clock.port.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import { type TokenSealer, tokenBinding } from '../../domain/sso/token-sealer.port.js';
import type { Store } from '../../domain/store.port.js';
import type { ClientInfo } from '../login-result.js';
import type { SessionEnding } from '../session-ending.js';
import type { SsoProviderParts, SsoProviders } from './sso-providers.js';

/**
 * `POST /api/v1/openid/logout/`: the local session ends first, whatever happens next; then the
 * provider session, at the provider the session was made through (contract 6a): RFC 7009
 * revocation of the kept tokens, and its interpreter's own end-session call when the customer's
 * package provides one. Provider failures surface as SSO_REFUSED or
 * SSO_UNREACHABLE after the local session is already gone.
 */
export class SsoLogout {
  constructor(
    private readonly store: Store,
    private readonly ending: SessionEnding,
    private readonly providers: SsoProviders,
    private readonly sealer: TokenSealer,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(
    token: string | null,
    client?: ClientInfo,
  ): Promise<{ endedLocally: boolean; provider: 'none' | 'done' }> {
    if (!token || !isWellFormedSessionToken(token)) return { endedLocally: false, provider: 'none' };
    const audited = (session: SessionRecord) =>
      ({
        actor: 'user',
        userId: session.userId,
        sessionHandle: session.handle,
        method: session.method,
        clientAddress: client?.clientAddress ?? null,
      }) as const;
    // The local session ends and its audit record is written together.
    const ended = await this.ending.one(hashSessionToken(token), {
      reason: 'sso_logout',
      clientAddress: client?.clientAddress ?? null,
    });
    if (!ended) return { endedLocally: false, provider: 'none' };
    // A provider no longer served (disabled, removed, unconfigured) is not called.
    const served = ended.method === 'sso' && ended.sso ? this.providers.find(ended.sso.provider) : null;
    if (!served || !ended.sso) return { endedLocally: true, provider: 'none' };
    let failure: unknown = null;
    let unreadable = false;
    try {
      ({ unreadable } = await this.endAtProvider(served.parts, ended.sso));
    } catch (error) {
      failure = error;
    }
    // Recorded either way: a provider session left alive lets the next SSO login through silently.
    const record = auditEvent({
      ...audited(ended),
      occurredAt: this.clock.now(),
      event: 'provider_logout',
      providerId: served.rules.id,
      // Tokens sealed under another TOKEN_ENCRYPTION_KEY cannot be revoked: the provider's grant
      // lives on until it expires there. The logout still succeeds locally (and answers 200).
      outcome: failure === null && !unreadable ? 'success' : 'failure',
      reason:
        failure !== null
          ? isDomainError(failure)
            ? failure.code.toLowerCase()
            : 'internal_error'
          : unreadable
            ? 'tokens_unreadable'
            : null,
    });
    if (failure !== null) {
      // The provider's failure is the answer (SSO_REFUSED, SSO_UNREACHABLE), even should the
      // store fail too; the local end was recorded with the session's deletion already.
      await this.store.audit.record(record).catch(() => undefined);
      throw failure;
    }
    await this.store.audit.record(record);
    return { endedLocally: true, provider: 'done' };
  }

  /** RFC 7009 revocation of the kept tokens, then the interpreter's own end-session call if any. */
  private async endAtProvider(
    { provider, interpreter }: SsoProviderParts,
    sso: SsoSessionData,
  ): Promise<{ unreadable: boolean }> {
    const open = (sealed: string | null, slot: 'access_token' | 'refresh_token') =>
      sealed ? (this.sealer.open(sealed, tokenBinding(slot, sso)) ?? undefined) : undefined;
    const accessToken = open(sso.accessTokenSealed, 'access_token');
    const refreshToken = open(sso.refreshTokenSealed, 'refresh_token');
    const tokens = {
      ...(sso.idToken ? { idToken: sso.idToken } : {}),
      ...(accessToken ? { accessToken } : {}),
      ...(refreshToken ? { refreshToken } : {}),
    };
    await provider.logout(tokens);
    if (interpreter.endProviderSession) {
      try {
        await interpreter.endProviderSession(tokens);
      } catch (error) {
        if (isDomainError(error)) throw error;
        // A customer package's own failure (typically its network call) must not become a 500:
        // the spec reports SSO logout failures as SSO_REFUSED or SSO_UNREACHABLE.
        throw new DomainError('SSO_UNREACHABLE', 'The OpenID provider session could not be ended.', {
          cause: error,
        });
      }
    }
    const unreadable =
      (sso.accessTokenSealed !== null && tokens.accessToken === undefined) ||
      (sso.refreshTokenSealed !== null && tokens.refreshToken === undefined);
    return { unreadable };
  }
}
