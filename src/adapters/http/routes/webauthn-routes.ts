import { z } from 'zod';
import type { PasskeyLogin } from '../../../application/mfa/passkey-login.js';
import type { WebAuthnCredentialRemoval } from '../../../application/mfa/webauthn-credential-removal.js';
import type { WebAuthnRegistration } from '../../../application/mfa/webauthn-registration.js';
import type { WebAuthnSecondFactor } from '../../../application/mfa/webauthn-second-factor.js';
import { WEBAUTHN_CHALLENGE_TTL_S } from '../../../domain/mfa/webauthn-challenge.js';
import { DomainError } from '../../../domain/shared/domain-error.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, readCookies, sessionCookie } from '../cookies.js';
import { defineRoute, type Route } from '../route.js';
import { emptyRequestSchema, emptyResponseSchema, loginResponseSchema } from '../schemas.js';
import {
  authenticationResponseJsonSchema,
  creationOptionsSchema,
  credentialIdSchema,
  factorPasswordRequestSchema,
  requestOptionsSchema,
  webAuthnEnrolledLoginSchema,
  webAuthnRegisteredSchema,
  webAuthnRegisterRequestSchema,
} from '../webauthn-schemas.js';

export interface WebAuthnRouteDeps {
  registration: WebAuthnRegistration;
  removal: WebAuthnCredentialRemoval;
  passkeyLogin: PasskeyLogin;
  secondFactor: WebAuthnSecondFactor;
  cookie: CookieSettings;
}

/** The passkey-login attempt's cookie: sent back only to the passkey routes. */
export const PASSKEY_ATTEMPT_COOKIE = 'gatehouse_webauthn';
const PASSKEY_COOKIE_PATH = '/api/v1/webauthn/';

function attemptCookie(settings: CookieSettings, value: string, maxAgeS: number): string {
  const parts = [`${PASSKEY_ATTEMPT_COOKIE}=${value}`, `Path=${PASSKEY_COOKIE_PATH}`, `Max-Age=${maxAgeS}`];
  if (maxAgeS === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (settings.domain) parts.push(`Domain=${settings.domain}`);
  parts.push('HttpOnly');
  if (settings.secure) parts.push('Secure');
  // Strict: the ceremony runs on the service's own pages; no other site starts or finishes one.
  parts.push('SameSite=Strict');
  return parts.join('; ');
}

const ATTEMPT_COOKIE_HEADER = {
  'Set-Cookie': {
    description: `\`${PASSKEY_ATTEMPT_COOKIE}\`: the attempt the challenge is bound to (HttpOnly, Path=${PASSKEY_COOKIE_PATH}).`,
    required: true,
  },
};

/** WebAuthn (contract 3b): adding and removing credentials, passkey login, second-factor options. */
export function webAuthnRoutes(deps: WebAuthnRouteDeps): Route[] {
  const cookieName = deps.cookie.name;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/webauthn/register/options/',
      session: 'live-or-enrolment',
      request: { schema: factorPasswordRequestSchema },
      openapi: {
        operationId: 'webauthnRegisterOptions',
        tag: 'session',
        summary: 'Start adding a passkey or security key',
        description:
          'Checks the password (a wrong one counts as a failed login) and answers the creation options, ' +
          'the challenge bound to this session and good for 5 minutes. Also on a session that must ' +
          'enrol a factor to finish its login.',
        responses: [{ status: 200, description: 'Creation options.', schema: creationOptionsSchema }],
        errors: [
          'AUTHENTICATION_FAILED',
          'TOO_MANY_ATTEMPTS',
          'MFA_NOT_APPLICABLE',
          'MFA_NOT_CONFIGURED',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply, session, body }) => {
        const { password } = await body();
        reply.json(await deps.registration.options(session, password, clientInfo(request)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webauthn/register/',
      session: 'live-or-enrolment',
      request: { schema: webAuthnRegisterRequestSchema },
      openapi: {
        operationId: 'webauthnRegister',
        tag: 'session',
        summary: 'Add a passkey or security key',
        description:
          "Takes the authenticator's answer to the options. The user's other sessions end. With the " +
          'first factor come ten recovery codes, shown once. On a session that had to enrol a factor, ' +
          'answers the full login answer (a new session id) plus the credential as `recovery_codes`.',
        responses: [
          {
            status: 200,
            description: 'Credential added (and, for an enrolling session, logged in).',
            schema: z.union([webAuthnRegisteredSchema, webAuthnEnrolledLoginSchema]),
          },
        ],
        errors: [
          'MFA_INVALID',
          'CONFLICT',
          'MFA_NOT_APPLICABLE',
          'MFA_NOT_CONFIGURED',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply, session, body }) => {
        const { response, name } = await body();
        const added = await deps.registration.register(session, {
          response,
          name,
          client: clientInfo(request),
        });
        const codes = added.recoveryCodes ? { recovery_codes: added.recoveryCodes } : {};
        if (added.login) {
          reply.cookie(sessionCookie(deps.cookie, added.login.token, added.login.lifetimeS));
          reply.json(
            webAuthnEnrolledLoginSchema.parse({
              ids: added.login.ids,
              profile: added.login.profile,
              ...codes,
            }),
          );
          return;
        }
        reply.json(
          webAuthnRegisteredSchema.parse({
            id: added.credentialId,
            name: added.name,
            created_at: added.createdAt.toISOString(),
            ...codes,
          }),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webauthn/credentials/:id/remove/',
      session: 'live',
      request: { schema: factorPasswordRequestSchema },
      openapi: {
        operationId: 'webauthnRemoveCredential',
        tag: 'session',
        summary: 'Remove a passkey or security key',
        description: "Checks the password; removes the credential; the user's other sessions end.",
        pathParameters: [
          { name: 'id', description: 'The credential id, base64url.', schema: credentialIdSchema },
        ],
        responses: [{ status: 200, description: 'Removed.', schema: emptyResponseSchema }],
        errors: [
          'NOT_FOUND',
          'AUTHENTICATION_FAILED',
          'TOO_MANY_ATTEMPTS',
          'MFA_NOT_APPLICABLE',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply, session, body }) => {
        const { password } = await body();
        const id = credentialIdSchema.safeParse(request.params.id);
        if (!id.success) throw new DomainError('NOT_FOUND', 'You have no credential with this id.');
        await deps.removal.remove(session, { credentialId: id.data, password, client: clientInfo(request) });
        reply.json(emptyResponseSchema.parse({}));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webauthn/login/options/',
      session: 'none',
      request: { schema: emptyRequestSchema, optional: true },
      openapi: {
        operationId: 'passkeyLoginOptions',
        tag: 'session',
        summary: 'Start a passkey login',
        description:
          'Request options without `allowCredentials` (the authenticator offers its passkeys), user ' +
          `verification required; the challenge is bound to the \`${PASSKEY_ATTEMPT_COOKIE}\` cookie set ` +
          'here and good for 5 minutes.',
        responses: [
          {
            status: 200,
            description: 'Request options.',
            schema: requestOptionsSchema,
            headers: ATTEMPT_COOKIE_HEADER,
          },
        ],
        errors: ['MFA_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ reply, body }) => {
        await body();
        const started = await deps.passkeyLogin.start();
        reply.cookie(attemptCookie(deps.cookie, started.attempt, WEBAUTHN_CHALLENGE_TTL_S));
        reply.json(started.options);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webauthn/login/',
      // A session cookie sent along is read: the login revokes it (fixation defence).
      session: 'optional',
      request: { schema: authenticationResponseJsonSchema },
      openapi: {
        operationId: 'passkeyLogin',
        tag: 'session',
        summary: 'Log in with a passkey',
        description:
          'The bare AuthenticationResponseJSON. Answers as a password login: a new session (made with ' +
          'two factors: `amr` hwk, mfa) or `401 AUTHENTICATION_FAILED` with the same body. The ' +
          'attempt cookie is cleared either way: every try needs new options.',
        responses: [
          { status: 200, description: 'Logged in.', schema: loginResponseSchema, setCookie: 'session' },
        ],
        errors: ['AUTHENTICATION_FAILED', 'TOO_MANY_ATTEMPTS', 'MFA_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, body }) => {
        const response = await body();
        const cookies = request.header('cookie');
        // The challenge is used up whatever the outcome: so is its cookie.
        reply.cookie(attemptCookie(deps.cookie, '', 0));
        const result = await deps.passkeyLogin.finish({
          response,
          attempts: readCookies(cookies, PASSKEY_ATTEMPT_COOKIE),
          presentedTokens: readCookies(cookies, cookieName),
          client: clientInfo(request),
        });
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/mfa/webauthn/options/',
      session: 'pending-second-factor',
      request: { schema: emptyRequestSchema, optional: true },
      openapi: {
        operationId: 'mfaWebauthnOptions',
        tag: 'session',
        summary: 'Options for a security key as the second factor',
        description:
          "Request options listing the user's credentials, the challenge bound to this pending session " +
          '(5 minutes); the answer goes to `POST /api/v1/mfa/verify/` as `{"webauthn": ...}`.',
        responses: [{ status: 200, description: 'Request options.', schema: requestOptionsSchema }],
        errors: ['MFA_INVALID', 'MFA_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ reply, session, body }) => {
        await body();
        reply.json(await deps.secondFactor.options(session));
      },
    }),
  ];
}
