import { z } from 'zod';

/**
 * The W3C JSON forms of the two responses, checked before the library sees them: the library
 * trusts the TypeScript type it is given and fails on a wrong shape with whatever a property
 * access throws. Bounds keep a hostile body from costing more than a real one: a credential id is
 * at most 1023 bytes (WebAuthn Level 3, "Credential ID"), the rest has room to spare for real authenticators.
 */
const base64url = (maxLength: number) =>
  z
    .string()
    .min(1)
    .max(maxLength)
    .regex(/^[A-Za-z0-9_-]+$/);

/** 1023 bytes in base64url, no padding. */
const credentialId = base64url(1364);

/** Transport hints the spec names; others are dropped rather than stored. */
const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const transports = z
  .array(z.string().max(32))
  .max(10)
  .optional()
  .transform((list) => (list ?? []).filter((transport) => KNOWN_TRANSPORTS.has(transport)));

const credentialCommon = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional().default({}),
};

export const registrationResponseShape = z.object({
  ...credentialCommon,
  response: z.object({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(65536),
    transports,
  }),
});

export const authenticationResponseShape = z.object({
  ...credentialCommon,
  response: z.object({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(8192),
    signature: base64url(2048),
    userHandle: base64url(128).optional(),
  }),
});
