import { hashSessionToken, isWellFormedSessionToken } from '../domain/session/session-token.js';
import { DomainError, isDomainError } from '../domain/shared/domain-error.js';
import type { OpenIdProvider } from '../domain/sso/openid-provider.port.js';
import type { SsoTokenInterpreter } from '../domain/sso/sso-token-interpreter.port.js';
import type { TokenSealer } from '../domain/sso/token-sealer.port.js';
import type { Store } from '../domain/store.port.js';
import type { LoginEvents } from './login-events.js';

/**
 * `POST /api/v1/openid/logout/`: the local session ends first, whatever happens next; then the
 * provider session: RFC 7009 revocation of the kept tokens, and the interpreter's own end-session
 * call when a customer package provides one. Provider failures surface as SSO_REFUSED or
 * SSO_UNREACHABLE after the local session is already gone.
 */
export class SsoLogout {
  constructor(
    private readonly store: Store,
    private readonly provider: OpenIdProvider | null,
    private readonly interpreter: SsoTokenInterpreter | null,
    private readonly sealer: TokenSealer | null,
    private readonly events: LoginEvents,
  ) {}

  async execute(token: string | null): Promise<{ endedLocally: boolean; provider: 'none' | 'done' }> {
    if (!token || !isWellFormedSessionToken(token)) return { endedLocally: false, provider: 'none' };
    const ended = await this.store.sessions.deleteByTokenHash(hashSessionToken(token));
    if (!ended) return { endedLocally: false, provider: 'none' };
    this.events.sessionEnded({ userId: ended.userId, why: 'sso_logout', count: 1 });
    if (ended.method !== 'sso' || !ended.sso || !this.provider)
      return { endedLocally: true, provider: 'none' };

    const open = (sealed: string | null) =>
      sealed && this.sealer ? (this.sealer.open(sealed) ?? undefined) : undefined;
    const tokens = {
      ...(ended.sso.idToken ? { idToken: ended.sso.idToken } : {}),
      ...(open(ended.sso.accessTokenSealed) ? { accessToken: open(ended.sso.accessTokenSealed)! } : {}),
      ...(open(ended.sso.refreshTokenSealed) ? { refreshToken: open(ended.sso.refreshTokenSealed)! } : {}),
    };
    await this.provider.logout(tokens);
    if (this.interpreter?.endProviderSession) {
      try {
        await this.interpreter.endProviderSession(tokens);
      } catch (error) {
        if (isDomainError(error)) throw error;
        // A customer package's own failure (typically its network call) must not become a 500:
        // the spec reports SSO logout failures as SSO_REFUSED or SSO_UNREACHABLE.
        throw new DomainError('SSO_UNREACHABLE', 'The OpenID provider session could not be ended.', {
          cause: error,
        });
      }
    }
    return { endedLocally: true, provider: 'done' };
  }
}
