import type { SecondFactorVerification } from '../../../application/mfa/second-factor-verification.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, deviceCookie, sessionCookie } from '../cookies.js';
import { mfaVerifyRequestSchema } from '../mfa-login-schemas.js';
import { defineRoute, type Route } from '../route.js';
import { loginResponseSchema } from '../schemas.js';

export interface MfaLoginRouteDeps {
  verification: SecondFactorVerification;
  cookie: CookieSettings;
}

/** The second step of a password login (contract 3b). */
export function mfaLoginRoutes(deps: MfaLoginRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/mfa/verify/',
      session: 'pending-second-factor',
      request: { schema: mfaVerifyRequestSchema },
      openapi: {
        operationId: 'verifySecondFactor',
        tag: 'session',
        summary: 'Finish a login with its second factor',
        description:
          'On the pending session of a password login: exactly one of `totp`, `recovery_code`, ' +
          '`webauthn`. Answers as POST /api/v1/login/ with a new session id; the pending session ends. ' +
          'A TOTP code is accepted once, a recovery code once ever. Failures are throttled per account.',
        responses: [
          { status: 200, description: 'Logged in.', schema: loginResponseSchema, setCookie: 'session' },
        ],
        errors: ['MFA_INVALID', 'MFA_NOT_CONFIGURED', 'TOO_MANY_ATTEMPTS', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, session, body }) => {
        const { totp, recovery_code, webauthn } = await body();
        // The one dispatch point of the methods: the schema let exactly one through.
        const proof =
          totp !== undefined
            ? ({ method: 'totp', code: totp } as const)
            : recovery_code !== undefined
              ? ({ method: 'recovery_code', code: recovery_code } as const)
              : ({ method: 'webauthn', response: webauthn! } as const);
        const result = await deps.verification.execute(session, proof, clientInfo(request));
        reply.cookie(sessionCookie(deps.cookie, result.token, result.lifetimeS));
        reply.cookie(deviceCookie(deps.cookie, result.device.proof, result.device.lifetimeS));
        reply.json(loginResponseSchema.parse({ ids: result.ids, profile: result.profile }));
      },
    }),
  ];
}
