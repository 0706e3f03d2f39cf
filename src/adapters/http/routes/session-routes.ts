import Router from '@koa/router';
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
import {
  emptyRequestSchema,
  loginRequestSchema,
  loginResponseSchema,
  parseBody,
  passwordChangeRequestSchema,
  type sessionViewSchema,
} from '../schemas.js';
import { sessionGuard } from '../session-guard.js';
import type { GatehouseState } from '../state.js';

export interface SessionRouteDeps {
  passwordLogin: PasswordLogin;
  logout: Logout;
  changePassword: ChangePassword;
  authenticator: SessionAuthenticator;
  cookie: CookieSettings;
}

/** The password half: login, logout, current session, password change. */
export function sessionRoutes(deps: SessionRouteDeps): Router<GatehouseState> {
  const router = new Router<GatehouseState>();
  const cookieName = deps.cookie.name;

  router.post('/api/v1/login/', async (ctx) => {
    const body = parseBody(loginRequestSchema, await readJsonBody(ctx));
    const result = await deps.passwordLogin.execute({
      username: body.username,
      password: body.password,
      presentedTokens: readCookies(ctx.get('Cookie'), cookieName),
      deviceProofs: readCookies(ctx.get('Cookie'), deviceCookieName(deps.cookie)),
      client: clientInfo(ctx),
    });
    ctx.append('Set-Cookie', sessionCookie(deps.cookie, result.token, result.lifetimeS));
    ctx.append('Set-Cookie', deviceCookie(deps.cookie, result.device.proof, result.device.lifetimeS));
    ctx.body = loginResponseSchema.parse({ ids: result.ids, profile: result.profile });
  });

  router.post('/api/v1/logout/', async (ctx) => {
    parseBody(emptyRequestSchema, await readJsonBody(ctx));
    // With several session cookies, the one live session is ended (none when several are live).
    const token = await deps.authenticator.liveToken(readCookies(ctx.get('Cookie'), cookieName));
    await deps.logout.execute(token, clientInfo(ctx));
    ctx.append('Set-Cookie', clearedSessionCookie(deps.cookie));
    ctx.body = {};
  });

  router.get('/api/v1/session/', sessionGuard(deps.authenticator, { cookieName }), (ctx) => {
    // The hot path answers without a parse: view() builds exactly this shape, which the compiler
    // checks here and the conformance tests check against the OpenAPI document.
    const body: z.output<typeof sessionViewSchema> = deps.authenticator.view(ctx.state.gatehouse!);
    ctx.body = body;
  });

  router.post(
    '/api/v1/password/',
    sessionGuard(deps.authenticator, { cookieName, allowExpiredCredentials: true }),
    async (ctx) => {
      const body = parseBody(passwordChangeRequestSchema, await readJsonBody(ctx));
      const result = await deps.changePassword.execute(ctx.state.gatehouse!, {
        oldPassword: body.old_password,
        newPassword: body.new_password,
        client: clientInfo(ctx),
      });
      ctx.append('Set-Cookie', sessionCookie(deps.cookie, result.token, result.lifetimeS));
      ctx.body = loginResponseSchema.parse({ ids: result.ids, profile: result.profile });
    },
  );

  return router;
}
