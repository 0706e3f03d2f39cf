import type { SessionAuthenticator } from '../../../application/session-authenticator.js';
import type { BackchannelLogout } from '../../../application/sso/backchannel-logout.js';
import type { SsoLogin } from '../../../application/sso/sso-login.js';
import type { SsoLogout } from '../../../application/sso/sso-logout.js';
import { DomainError, type ErrorCode, isDomainError } from '../../../domain/shared/domain-error.js';
import { SSO_INTERPRETATION_CODES } from '../../../domain/sso/sso-token-interpreter.port.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, clearedSessionCookie, readCookies, sessionCookie } from '../cookies.js';
import { readFormBody } from '../form-body.js';
import { defineRoute, type Route } from '../route.js';
import {
  backchannelLogoutRequestSchema,
  emptyRequestSchema,
  emptyResponseSchema,
  loginResponseSchema,
  ssoLoginRequestSchema,
} from '../schemas.js';

export interface SsoRouteDeps {
  sso: { login: SsoLogin; logout: SsoLogout; backchannelLogout: BackchannelLogout };
  /** False while the service has no provider at all: every SSO route answers SSO_NOT_CONFIGURED. */
  available: () => boolean;
  cookie: CookieSettings;
  /** Picks the one live session among several session cookies (logout). */
  authenticator: Pick<SessionAuthenticator, 'liveToken'>;
}

/** What the code exchange may answer, besides transport failures: the interpreters' refusals. */
const SSO_EXCHANGE_ERRORS: ErrorCode[] = [...SSO_INTERPRETATION_CODES];

export function ssoRoutes(deps: SsoRouteDeps): Route[] {
  const configured = () => {
    if (!deps.available())
      throw new DomainError('SSO_NOT_CONFIGURED', 'Single sign-on is not configured on this service.');
    return deps.sso;
  };
  const cookieName = deps.cookie.name;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/openid/login/',
      // A session cookie sent along is read: the login revokes it (fixation defence).
      session: 'optional',
      request: { schema: ssoLoginRequestSchema },
      openapi: {
        operationId: 'ssoLogin',
        tag: 'sso',
        summary: 'Single sign-on login (second step of the OpenID Connect code flow)',
        description:
          'Exchanges the authorization code at the OpenID provider, validates the ID token and its ' +
          'nonce, maps the tokens to a local user and creates a session.',
        responses: [
          { status: 200, description: 'Logged in.', schema: loginResponseSchema, setCookie: 'session' },
        ],
        errors: ['SSO_NOT_CONFIGURED', ...SSO_EXCHANGE_ERRORS, 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, body }) => {
        const sso = configured();
        const sent = await body();
        const result = await sso.login.execute({
          nonce: sent.nonce,
          authorizationCode: sent.authorization_code,
          redirectUri: sent.redirect_uri,
          ...(sent.code_verifier ? { codeVerifier: sent.code_verifier } : {}),
          presentedTokens: readCookies(request.header('cookie'), cookieName),
          client: clientInfo(request),
        });
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/openid/logout/',
      session: 'optional',
      request: { schema: emptyRequestSchema, optional: true },
      openapi: {
        operationId: 'ssoLogout',
        tag: 'sso',
        summary: 'Single sign-on logout',
        description:
          'Ends the local session first, whatever happens next, then the session at the OpenID ' +
          'provider (token revocation). A password session just ends locally. The cookie is cleared ' +
          'even when the provider fails.',
        responses: [
          { status: 200, description: 'Logged out.', schema: emptyResponseSchema, setCookie: 'cleared' },
        ],
        errors: ['SSO_NOT_CONFIGURED', 'SSO_REFUSED', 'SSO_UNREACHABLE', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, body }) => {
        const sso = configured();
        await body();
        // The cookie is cleared whatever the provider answers: the local session is gone either way.
        reply.cookie(clearedSessionCookie(deps.cookie));
        const token = await deps.authenticator.liveToken(readCookies(request.header('cookie'), cookieName));
        await sso.logout.execute(token, clientInfo(request));
        reply.json({});
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/openid/backchannel-logout/',
      session: 'none',
      // Documents the form; the handler reads its one field itself, with its own refusals.
      request: { schema: backchannelLogoutRequestSchema, mediaType: 'application/x-www-form-urlencoded' },
      openapi: {
        operationId: 'ssoBackchannelLogout',
        tag: 'sso',
        summary: 'OpenID Connect Back-Channel Logout receiver',
        description:
          'Called by the OpenID provider, not by browsers: ends every local session the logout ' +
          'token names (by `sid` or `sub`). An invalid logout token is answered 400; a client ' +
          'address that sent too many invalid ones in the window is answered 429 before its token is checked.',
        responses: [{ status: 200, description: 'Sessions ended.', schema: emptyResponseSchema }],
        errors: [
          'SSO_NOT_CONFIGURED',
          'SSO_REFUSED',
          'SSO_UNREACHABLE',
          'TOO_MANY_ATTEMPTS',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply }) => {
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
    }),
  ];
}
