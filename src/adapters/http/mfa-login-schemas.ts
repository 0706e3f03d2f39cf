import { z } from 'zod';

/**
 * The bodies of a login's second step (contract 3b). Their own file: the enrolment and WebAuthn
 * routes keep theirs, so the shared schemas.ts is not where the second-factor work meets.
 */

const mfaMethodSchema = z.enum(['totp', 'webauthn', 'recovery_code']);

/**
 * A right password of a user with a factor (or of a level that requires one): a pending session,
 * and nothing of the profile but what the second step needs.
 */
export const pendingLoginResponseSchema = z
  .object({
    ids: z.object({}).meta({ description: 'Empty until the login is finished.' }),
    profile: z.object({
      user_level: z.literal([0, 4, 8, 12, 16]),
      is_first_login: z.boolean(),
      username: z.string(),
      mfa_required: z.literal(true),
      mfa_methods: z.array(mfaMethodSchema).meta({
        description: 'The methods that finish this login; empty when a factor must be enrolled first.',
      }),
      mfa_enrollment_required: z.literal(true).optional().meta({
        description: 'The user must enrol a first factor (MFA_REQUIRED_LEVELS) before the login is finished.',
      }),
    }),
  })
  .meta({
    id: 'PendingLoginResponse',
    examples: [
      {
        ids: {},
        profile: {
          user_level: 0,
          is_first_login: false,
          username: 'ann',
          mfa_required: true,
          mfa_methods: ['totp', 'recovery_code'],
        },
      },
    ],
  });

/**
 * The second step: exactly one factor. A string that cannot be a code of its kind is not a
 * malformed request but a wrong factor (401 MFA_INVALID, counted as a failure): only the shape is
 * checked here.
 */
export const mfaVerifyRequestSchema = z
  .object({
    totp: z.string().max(64).optional().meta({ description: 'The 6 digits the authenticator app shows.' }),
    recovery_code: z
      .string()
      .max(64)
      .optional()
      .meta({ description: 'One of the recovery codes (case, spaces and hyphens do not matter).' }),
    webauthn: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'An AuthenticationResponseJSON answering POST /api/v1/mfa/webauthn/options/.' }),
  })
  .refine(
    (body) => [body.totp, body.recovery_code, body.webauthn].filter((x) => x !== undefined).length === 1,
    {
      message: 'Send exactly one of totp, recovery_code, webauthn.',
    },
  )
  .meta({ id: 'MfaVerifyRequest', examples: [{ totp: '123456' }] });
