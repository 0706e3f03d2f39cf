import type { SessionAuthenticator } from '../../../application/session-authenticator.js';
import type { BackchannelLogout } from '../../../application/sso/backchannel-logout.js';
import type { SsoLogin } from '../../../application/sso/sso-login.js';
import type { SsoLogout } from '../../../application/sso/sso-logout.js';
import { DomainError, isDomainError } from '../../../domain/shared/domain-error.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, clearedSessionCookie, readCookies, sessionCookie } from '../cookies.js';
import { readFormBody } from '../form-body.js';
import { readJsonBody } from '../json-body.js';
import type { Route } from '../route.js';
import { emptyRequestSchema, loginResponseSchema, parseBody, ssoLoginRequestSchema } from '../schemas.js';

export interface SsoRouteDeps {
  sso: { login: SsoLogin; logout: SsoLogout; backchannelLogout: BackchannelLogout };
  /** False while the service has no provider at all: every SSO route answers SSO_NOT_CONFIGURED. */
  available: () => boolean;
  cookie: CookieSettings;
  /** Picks the one live session among several session cookies (logout). */
  authenticator: Pick<SessionAuthenticator, 'liveToken'>;
}

export function ssoRoutes(deps: SsoRouteDeps): Route[] {
  const configured = () => {
    if (!deps.available())
      throw new DomainError('SSO_NOT_CONFIGURED', 'Single sign-on is not configured on this service.');
    return deps.sso;
  };
  const cookieName = deps.cookie.name;
  return [
    {
      method: 'POST',
      path: '/api/v1/openid/login/',
      handle: async (request, reply) => {
        const sso = configured();
        const body = parseBody(ssoLoginRequestSchema, await readJsonBody(request));
        const result = await sso.login.execute({
          nonce: body.nonce,
          authorizationCode: body.authorization_code,
          redirectUri: body.redirect_uri,
          ...(body.code_verifier ? { codeVerifier: body.code_verifier } : {}),
          presentedTokens: readCookies(request.header('cookie'), cookieName),
          client: clientInfo(request),
        });
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/openid/logout/',
      handle: async (request, reply) => {
        const sso = configured();
        parseBody(emptyRequestSchema, await readJsonBody(request));
        // The cookie is cleared whatever the provider answers: the local session is gone either way.
        reply.cookie(clearedSessionCookie(deps.cookie));
        const token = await deps.authenticator.liveToken(readCookies(request.header('cookie'), cookieName));
        await sso.logout.execute(token, clientInfo(request));
        reply.json({});
      },
    },
    {
      method: 'POST',
      path: '/api/v1/openid/backchannel-logout/',
      handle: async (request, reply) => {
        const sso = configured();
        const form = await readFormBody(request);
        const logoutToken = form.get('logout_token');
        if (!logoutToken) throw new DomainError('INVALID_REQUEST', 'logout_token is required.');
        try {
          await sso.backchannelLogout.execute(logoutToken, clientInfo(request));
        } catch (error) {
          // Back-Channel Logout 1.0 section 2.8: a refused logout token is answered 400.
          if (isDomainError(error) && error.code === 'SSO_INVALID') {
            throw new DomainError('INVALID_REQUEST', 'The logout token is invalid.', { cause: error });
          }
          throw error;
        }
        reply.json({});
      },
    },
  ];
}
