import { z } from 'zod';
import type { ChangePassword } from '../../../application/change-password.js';
import type { Logout } from '../../../application/logout.js';
import type { PasswordLogin, PendingPasswordLogin } from '../../../application/password-login.js';
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
import { pendingLoginResponseSchema } from '../mfa-login-schemas.js';
import { defineRoute, type Route } from '../route.js';
import {
  emptyRequestSchema,
  emptyResponseSchema,
  loginRequestSchema,
  loginResponseSchema,
  passwordChangeRequestSchema,
  sessionViewSchema,
} from '../schemas.js';

export interface SessionRouteDeps {
  passwordLogin: PasswordLogin;
  logout: Logout;
  changePassword: ChangePassword;
  authenticator: SessionAuthenticator;
  cookie: CookieSettings;
}

/** The answer of a login waiting for its second step: what that step needs, nothing more (3b). */
function pendingLoginAnswer(result: PendingPasswordLogin): z.output<typeof pendingLoginResponseSchema> {
  return pendingLoginResponseSchema.parse({
    ids: {},
    profile: {
      ...result.profile,
      mfa_required: true,
      mfa_methods: result.methods,
      ...(result.stage === 'enrolment' ? { mfa_enrollment_required: true } : {}),
    },
  });
}

/** The password half: login, logout, current session, password change. */
export function sessionRoutes(deps: SessionRouteDeps): Route[] {
  const cookieName = deps.cookie.name;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/login/',
      // A session cookie sent along is read: the login revokes it (fixation defence).
      session: 'optional',
      request: { schema: loginRequestSchema },
      openapi: {
        operationId: 'login',
        tag: 'session',
        summary: 'Log in with username and password',
        description:
          'Creates a session and sets its cookie. A session cookie sent with the request is revoked ' +
          '(fixation defence). Unknown user, wrong password and disabled account give the same answer.',
        responses: [
          {
            status: 200,
            description:
              'Logged in; or, for a user with a second factor (or whose level requires one), a pending ' +
              'session that only POST /api/v1/mfa/verify/ (or the enrolment routes) and logout accept.',
            schema: z.union([loginResponseSchema, pendingLoginResponseSchema]),
            setCookie: 'session',
          },
        ],
        errors: ['AUTHENTICATION_FAILED', 'TOO_MANY_ATTEMPTS', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, body }) => {
        const { username, password } = await body();
        const result = await deps.passwordLogin.execute({
          username,
          password,
          presentedTokens: readCookies(request.header('cookie'), cookieName),
          deviceProofs: readCookies(request.header('cookie'), deviceCookieName(deps.cookie)),
          client: clientInfo(request),
        });
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        if (result.kind === 'pending') {
          reply.json(pendingLoginAnswer(result));
          return;
        }
        reply.cookie(deviceCookie(deps.cookie, result.device.proof, result.device.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/logout/',
      session: 'optional',
      request: { schema: emptyRequestSchema, optional: true },
      openapi: {
        operationId: 'logout',
        tag: 'session',
        summary: 'End the current session',
        description: 'Deletes the session server-side (any kind) and clears the cookie. Idempotent.',
        responses: [
          { status: 200, description: 'Logged out.', schema: emptyResponseSchema, setCookie: 'cleared' },
        ],
        errors: ['SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, body }) => {
        await body();
        // With several session cookies, the one live session is ended (none when several are live).
        const token = await deps.authenticator.liveToken(readCookies(request.header('cookie'), cookieName));
        await deps.logout.execute(token, clientInfo(request));
        reply.cookie(clearedSessionCookie(deps.cookie));
        reply.json({});
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/session/',
      session: 'live',
      openapi: {
        operationId: 'getSession',
        tag: 'session',
        summary: 'The current session',
        description: 'The ids and profile of the logged-in user (no `phoneNumber`: login answers only).',
        responses: [{ status: 200, description: 'The current session.', schema: sessionViewSchema }],
        errors: ['SERVICE_UNAVAILABLE'],
      },
      handle: ({ reply, session }) => {
        // The hot path answers without a parse: view() builds exactly this shape, which the compiler
        // checks here and the conformance tests check against the OpenAPI document.
        const view: z.output<typeof sessionViewSchema> = deps.authenticator.view(session);
        reply.json(view);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/password/',
      session: 'live-expired-allowed',
      request: { schema: passwordChangeRequestSchema },
      openapi: {
        operationId: 'changePassword',
        tag: 'session',
        summary: 'Change the password',
        description:
          'Allowed on a session whose credentials expired. On success the expiry is cleared, the ' +
          "user's other sessions end and this one gets a new id (a new cookie).",
        responses: [
          {
            status: 200,
            description: 'Password changed.',
            schema: loginResponseSchema,
            setCookie: 'session',
          },
        ],
        errors: ['PASSWORD_POLICY', 'CURRENT_PASSWORD_MISMATCH', 'TOO_MANY_ATTEMPTS', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, session, body }) => {
        const { old_password, new_password } = await body();
        const result = await deps.changePassword.execute(session, {
          oldPassword: old_password,
          newPassword: new_password,
          client: clientInfo(request),
        });
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    }),
  ];
}
