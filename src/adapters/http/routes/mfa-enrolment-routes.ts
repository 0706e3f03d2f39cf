import { z } from 'zod';
import type { ConfirmTotpEnrolment } from '../../../application/mfa/confirm-totp-enrolment.js';
import type { MfaOverview } from '../../../application/mfa/mfa-overview.js';
import type { RegenerateRecoveryCodes } from '../../../application/mfa/regenerate-recovery-codes.js';
import type { RemoveTotp } from '../../../application/mfa/remove-totp.js';
import type { StartTotpEnrolment } from '../../../application/mfa/start-totp-enrolment.js';
import { RECOVERY_CODE_COUNT } from '../../../domain/mfa/recovery-codes.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, sessionCookie } from '../cookies.js';
import { defineRoute, type Route } from '../route.js';
import { emptyResponseSchema, idsSchema, profileSchema } from '../schemas.js';

export interface MfaEnrolmentRouteDeps {
  startTotp: StartTotpEnrolment;
  confirmTotp: ConfirmTotpEnrolment;
  removeTotp: RemoveTotp;
  regenerateRecoveryCodes: RegenerateRecoveryCodes;
  overview: MfaOverview;
  cookie: CookieSettings;
}

const EXAMPLE_PASSWORD = 'correct horse battery staple';

/** ASVS 5.0 7.5.1: the current password, again, before a factor is added or removed. */
export const mfaPasswordRequestSchema = z
  .object({ password: z.string().min(1).max(4096) })
  .meta({ id: 'MfaPasswordRequest', examples: [{ password: EXAMPLE_PASSWORD }] });

export const totpEnrolmentSchema = z
  .object({
    secret: z.string().meta({ description: 'Base32; shown this once.' }),
    otpauth_uri: z.string().meta({ description: 'What a QR code for the authenticator app carries.' }),
  })
  .meta({
    id: 'TotpEnrolment',
    examples: [
      {
        secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        otpauth_uri:
          'otpauth://totp/Gatehouse:ann?issuer=Gatehouse&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
      },
    ],
  });

export const totpConfirmRequestSchema = z
  .object({ totp: z.string().min(1).max(32).meta({ example: '123456' }) })
  .meta({ id: 'TotpConfirmRequest' });

const recoveryCodesField = z
  .array(z.string())
  .length(RECOVERY_CODE_COUNT)
  .meta({ description: 'Single-use codes, shown this once.' });

export const recoveryCodesSchema = z
  .object({ recovery_codes: recoveryCodesField })
  .meta({ id: 'RecoveryCodes' });

/**
 * The confirmation's answer: `{}`, or the recovery codes of a first factor, or (a login that
 * required enrolment) the full login answer with them.
 */
export const totpConfirmResponseSchema = z
  .object({
    ids: idsSchema.optional(),
    profile: profileSchema.optional(),
    recovery_codes: recoveryCodesField.optional(),
  })
  .meta({ id: 'TotpConfirmation' });

export const mfaOverviewSchema = z
  .object({
    totp: z.boolean(),
    webauthn: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        created_at: z.string(),
        last_used_at: z.string().nullable(),
      }),
    ),
    recovery_codes_left: z.number().int().nonnegative(),
    required: z.boolean(),
  })
  .meta({
    id: 'MfaOverview',
    examples: [{ totp: true, webauthn: [], recovery_codes_left: 10, required: false }],
  });

const ENROLMENT_RULE =
  'On a full session of a password user, or a login waiting for its required enrolment; an SSO ' +
  'session gets `403 MFA_NOT_APPLICABLE`.';
const PASSWORD_RULE =
  'The body carries the current password: a wrong one is `401 AUTHENTICATION_FAILED` and counts as ' +
  'a failed login in the throttle.';

/** Contract 3b, enrolment: TOTP, recovery codes, and what the user has. */
export function mfaEnrolmentRoutes(deps: MfaEnrolmentRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/mfa/',
      session: 'live-or-enrolment',
      openapi: {
        operationId: 'getMfa',
        tag: 'session',
        summary: 'Your second factors',
        description: `What you have set up, never a secret; \`required\`: your user level must have a second factor. ${ENROLMENT_RULE}`,
        responses: [{ status: 200, description: 'Your factors.', schema: mfaOverviewSchema }],
        errors: ['MFA_NOT_APPLICABLE', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ reply, session }) => {
        const overview = await deps.overview.execute(session);
        reply.json(
          mfaOverviewSchema.parse({
            totp: overview.totp,
            webauthn: overview.webauthn.map((credential) => ({
              id: credential.id,
              name: credential.name,
              created_at: credential.createdAt.toISOString(),
              last_used_at: credential.lastUsedAt?.toISOString() ?? null,
            })),
            recovery_codes_left: overview.recoveryCodesLeft,
            required: overview.required,
          }),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/mfa/totp/',
      session: 'live-or-enrolment',
      request: { schema: mfaPasswordRequestSchema },
      openapi: {
        operationId: 'startTotpEnrolment',
        tag: 'session',
        summary: 'Start setting up an authenticator app',
        description:
          'Answers a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) for the app; it is not active ' +
          'until `POST /api/v1/mfa/totp/confirm/` sends a code of it, within 5 minutes, in this session. ' +
          'Starting again replaces a pending one; with an app already active the answer is ' +
          '`409 CONFLICT` (remove it first). Without `TOKEN_ENCRYPTION_KEY`: `409 MFA_NOT_CONFIGURED`. ' +
          `${PASSWORD_RULE} ${ENROLMENT_RULE}`,
        responses: [{ status: 200, description: 'The pending secret.', schema: totpEnrolmentSchema }],
        errors: [
          'AUTHENTICATION_FAILED',
          'TOO_MANY_ATTEMPTS',
          'CONFLICT',
          'MFA_NOT_CONFIGURED',
          'MFA_NOT_APPLICABLE',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply, session, body }) => {
        const { password } = await body();
        const started = await deps.startTotp.execute(session, { password, client: clientInfo(request) });
        reply.json(totpEnrolmentSchema.parse({ secret: started.secret, otpauth_uri: started.otpauthUri }));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/mfa/totp/confirm/',
      session: 'live-or-enrolment',
      request: { schema: totpConfirmRequestSchema },
      openapi: {
        operationId: 'confirmTotpEnrolment',
        tag: 'session',
        summary: 'Activate the authenticator app with a code',
        description:
          'A current code of the pending secret activates it and ends your other sessions. Answers ' +
          '`{"recovery_codes": [...]}` (ten, shown once) when it is your first factor, else `{}`; on ' +
          'a login waiting for its required enrolment, the full login answer with the codes and a new ' +
          'session cookie. A wrong code, or a pending secret older than 5 minutes, is ' +
          `\`401 MFA_INVALID\` and counts as a failed login in the throttle. ${ENROLMENT_RULE}`,
        responses: [
          {
            status: 200,
            description: 'Active.',
            schema: totpConfirmResponseSchema,
            setCookie: 'session',
          },
        ],
        errors: [
          'MFA_INVALID',
          'TOO_MANY_ATTEMPTS',
          'MFA_NOT_CONFIGURED',
          'MFA_NOT_APPLICABLE',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply, session, body }) => {
        const { totp } = await body();
        const confirmed = await deps.confirmTotp.execute(session, { totp, client: clientInfo(request) });
        const codes = confirmed.recoveryCodes ? { recovery_codes: confirmed.recoveryCodes } : {};
        if (confirmed.login) {
          reply.cookie(sessionCookie(deps.cookie, confirmed.login.token, confirmed.login.lifetimeS));
          reply.json(
            totpConfirmResponseSchema.parse({
              ids: confirmed.login.ids,
              profile: confirmed.login.profile,
              ...codes,
            }),
          );
          return;
        }
        reply.json(totpConfirmResponseSchema.parse(codes));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/mfa/totp/remove/',
      session: 'live-or-enrolment',
      request: { schema: mfaPasswordRequestSchema },
      openapi: {
        operationId: 'removeTotp',
        tag: 'session',
        summary: 'Remove the authenticator app',
        description:
          'Removes it (active or pending) and ends your other sessions; with no factor left, the ' +
          `recovery codes go too. None set up: \`404 NOT_FOUND\`. ${PASSWORD_RULE} ${ENROLMENT_RULE}`,
        responses: [{ status: 200, description: 'Removed.', schema: emptyResponseSchema }],
        errors: [
          'AUTHENTICATION_FAILED',
          'TOO_MANY_ATTEMPTS',
          'NOT_FOUND',
          'MFA_NOT_APPLICABLE',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply, session, body }) => {
        const { password } = await body();
        await deps.removeTotp.execute(session, { password, client: clientInfo(request) });
        reply.json(emptyResponseSchema.parse({}));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/mfa/recovery-codes/',
      session: 'live-or-enrolment',
      request: { schema: mfaPasswordRequestSchema },
      openapi: {
        operationId: 'regenerateRecoveryCodes',
        tag: 'session',
        summary: 'New recovery codes',
        description:
          'Ten new single-use codes, shown once; every earlier code stops working. Without a second ' +
          `factor: \`409 CONFLICT\`. ${PASSWORD_RULE} ${ENROLMENT_RULE}`,
        responses: [{ status: 200, description: 'The new codes.', schema: recoveryCodesSchema }],
        errors: [
          'AUTHENTICATION_FAILED',
          'TOO_MANY_ATTEMPTS',
          'CONFLICT',
          'MFA_NOT_APPLICABLE',
          'SERVICE_UNAVAILABLE',
        ],
      },
      handle: async ({ request, reply, session, body }) => {
        const { password } = await body();
        const codes = await deps.regenerateRecoveryCodes.execute(session, {
          password,
          client: clientInfo(request),
        });
        reply.json(recoveryCodesSchema.parse({ recovery_codes: codes }));
      },
    }),
  ];
}
