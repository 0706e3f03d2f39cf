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
  ) {}

  async execute(logoutToken: string): Promise<number> {
    const claims = await this.provider.validateLogoutToken(logoutToken);
    const by = claims.sid ? { sid: claims.sid } : claims.subject ? { subject: claims.subject } : {};
    const count = await this.store.sessions.deleteBySso(claims.issuer, by);
    this.events.sessionEnded({ userId: claims.subject ?? '(by sid)', why: 'backchannel_logout', count });
    return count;
  }
}
