import Router from '@koa/router';
import type { BackchannelLogout } from '../../../application/backchannel-logout.js';
import type { SessionAuthenticator } from '../../../application/session-authenticator.js';
import type { SsoLogin } from '../../../application/sso-login.js';
import type { SsoLogout } from '../../../application/sso-logout.js';
import { DomainError, isDomainError } from '../../../domain/shared/domain-error.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, clearedSessionCookie, readCookies, sessionCookie } from '../cookies.js';
import { readFormBody } from '../form-body.js';
import { readJsonBody } from '../json-body.js';
import { emptyRequestSchema, loginResponseSchema, parseBody, ssoLoginRequestSchema } from '../schemas.js';
import type { GatehouseState } from '../state.js';

export interface SsoRouteDeps {
  /** Null when no OpenID provider is configured: every SSO route answers SSO_NOT_CONFIGURED. */
  sso: { login: SsoLogin; logout: SsoLogout; backchannelLogout: BackchannelLogout } | null;
  cookie: CookieSettings;
  /** Picks the one live session among several session cookies (logout). */
  authenticator: Pick<SessionAuthenticator, 'liveToken'>;
}

function notConfigured(): DomainError {
  return new DomainError('SSO_NOT_CONFIGURED', 'Single sign-on is not configured on this service.');
}

export function ssoRoutes(deps: SsoRouteDeps): Router<GatehouseState> {
  const router = new Router<GatehouseState>();
  const cookieName = deps.cookie.name;

  router.post('/api/v1/openid/login/', async (ctx) => {
    if (!deps.sso) throw notConfigured();
    const body = parseBody(ssoLoginRequestSchema, await readJsonBody(ctx));
    const result = await deps.sso.login.execute({
      nonce: body.nonce,
      authorizationCode: body.authorization_code,
      redirectUri: body.redirect_uri,
      ...(body.code_verifier ? { codeVerifier: body.code_verifier } : {}),
      presentedTokens: readCookies(ctx.get('Cookie'), cookieName),
      client: clientInfo(ctx),
    });
    ctx.append('Set-Cookie', sessionCookie(deps.cookie, result.token, result.lifetimeS));
    ctx.body = loginResponseSchema.parse({ ids: result.ids, profile: result.profile });
  });

  router.post('/api/v1/openid/logout/', async (ctx) => {
    if (!deps.sso) throw notConfigured();
    parseBody(emptyRequestSchema, await readJsonBody(ctx));
    // The cookie is cleared whatever the provider answers: the local session is gone either way.
    ctx.append('Set-Cookie', clearedSessionCookie(deps.cookie));
    const token = await deps.authenticator.liveToken(readCookies(ctx.get('Cookie'), cookieName));
    await deps.sso.logout.execute(token, clientInfo(ctx));
    ctx.body = {};
  });

  router.post('/api/v1/openid/backchannel-logout/', async (ctx) => {
    if (!deps.sso) throw notConfigured();
    const form = await readFormBody(ctx);
    const logoutToken = form.get('logout_token');
    if (!logoutToken) throw new DomainError('INVALID_REQUEST', 'logout_token is required.');
    try {
      await deps.sso.backchannelLogout.execute(logoutToken, clientInfo(ctx));
    } catch (error) {
      // Back-Channel Logout 1.0 section 2.8: a refused logout token is answered 400.
      if (isDomainError(error) && error.code === 'SSO_INVALID') {
        throw new DomainError('INVALID_REQUEST', 'The logout token is invalid.', { cause: error });
      }
      throw error;
    }
    ctx.body = {};
  });

  return router;
}
