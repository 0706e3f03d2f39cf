import type { z } from 'zod';
import type { ChangePassword } from '../../../application/change-password.js';
import type { Logout } from '../../../application/logout.js';
import type { PasswordLogin } from '../../../application/password-login.js';
import type { SessionAuthenticator } from '../../../application/session-authenticator.js';
import { clientInfo } from '../client-info.js';
import {
  type CookieSettings,
  clearedSessionCookie,
  deviceCookie,
  deviceCookieName,
  readCookies,
  sessionCookie,
} from '../cookies.js';
import { readJsonBody } from '../json-body.js';
import { type Route, sessionOf } from '../route.js';
import {
  emptyRequestSchema,
  loginRequestSchema,
  loginResponseSchema,
  parseBody,
  passwordChangeRequestSchema,
  type sessionViewSchema,
} from '../schemas.js';

export interface SessionRouteDeps {
  passwordLogin: PasswordLogin;
  logout: Logout;
  changePassword: ChangePassword;
  authenticator: SessionAuthenticator;
  cookie: CookieSettings;
}

/** The password half: login, logout, current session, password change. */
export function sessionRoutes(deps: SessionRouteDeps): Route[] {
  const cookieName = deps.cookie.name;
  return [
    {
      method: 'POST',
      path: '/api/v1/login/',
      handle: async (request, reply) => {
        const body = parseBody(loginRequestSchema, await readJsonBody(request));
        const result = await deps.passwordLogin.execute({
          username: body.username,
          password: body.password,
          presentedTokens: readCookies(request.header('cookie'), cookieName),
          deviceProofs: readCookies(request.header('cookie'), deviceCookieName(deps.cookie)),
          client: clientInfo(request),
        });
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        reply.cookie(deviceCookie(deps.cookie, result.device.proof, result.device.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/logout/',
      handle: async (request, reply) => {
        parseBody(emptyRequestSchema, await readJsonBody(request));
        // With several session cookies, the one live session is ended (none when several are live).
        const token = await deps.authenticator.liveToken(readCookies(request.header('cookie'), cookieName));
        await deps.logout.execute(token, clientInfo(request));
        reply.cookie(clearedSessionCookie(deps.cookie));
        reply.json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v1/session/',
      session: 'live',
      handle: (_request, reply, session) => {
        // The hot path answers without a parse: view() builds exactly this shape, which the compiler
        // checks here and the conformance tests check against the OpenAPI document.
        const body: z.output<typeof sessionViewSchema> = deps.authenticator.view(sessionOf(session));
        reply.json(body);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/password/',
      session: 'live-expired-allowed',
      handle: async (request, reply, session) => {
        const body = parseBody(passwordChangeRequestSchema, await readJsonBody(request));
        const result = await deps.changePassword.execute(sessionOf(session), {
          oldPassword: body.old_password,
          newPassword: body.new_password,
          client: clientInfo(request),
        });
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    },
  ];
}
