import { z } from 'zod';
import { loginResponseSchema } from './schemas.js';

/**
 * The bodies of the WebAuthn routes (contract 3b). Responses and options are the W3C JSON forms:
 * declared here as objects only, since the verifier checks a response's shape itself
 * (webauthn-response-shapes.ts) and answers MFA_INVALID for a wrong one.
 */

/** The password a factor change asks for. */
export const factorPasswordRequestSchema = z
  .object({ password: z.string().min(1).max(4096) })
  .meta({ id: 'FactorPasswordRequest', examples: [{ password: 'correct horse battery staple' }] });

const webAuthnJson = (id: string, description: string) => z.looseObject({}).meta({ id, description });

export const registrationResponseJsonSchema = webAuthnJson(
  'RegistrationResponseJSON',
  'What `navigator.credentials.create()` answered, in its W3C JSON form.',
);

export const authenticationResponseJsonSchema = webAuthnJson(
  'AuthenticationResponseJSON',
  'What `navigator.credentials.get()` answered, in its W3C JSON form.',
);

export const creationOptionsSchema = webAuthnJson(
  'PublicKeyCredentialCreationOptionsJSON',
  'For `navigator.credentials.create()` (W3C JSON form).',
);

export const requestOptionsSchema = webAuthnJson(
  'PublicKeyCredentialRequestOptionsJSON',
  'For `navigator.credentials.get()` (W3C JSON form).',
);

export const webAuthnRegisterRequestSchema = z
  .object({
    response: registrationResponseJsonSchema,
    name: z.string().trim().min(1).max(100).optional().meta({ example: 'YubiKey' }),
  })
  .meta({ id: 'WebAuthnRegisterRequest' });

const recoveryCodes = z.array(z.string()).length(10).optional().meta({
  description: 'Ten single-use codes, shown this once: only when this is the first factor.',
});

/** A credential added from a full session. */
export const webAuthnRegisteredSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: z.string(),
    recovery_codes: recoveryCodes,
  })
  .meta({ id: 'WebAuthnRegistered' });

/** A credential whose registration finished a login that had to enrol a factor. */
export const webAuthnEnrolledLoginSchema = loginResponseSchema
  .extend({ recovery_codes: recoveryCodes })
  .meta({ id: 'WebAuthnEnrolledLogin' });

/** A credential id in a path: base64url, at most 1023 bytes. */
export const credentialIdSchema = z
  .string()
  .min(1)
  .max(1364)
  .regex(/^[A-Za-z0-9_-]+$/);
