import type { TokenSealer } from '../sso/token-sealer.port.js';
import { mfaNotConfigured } from './mfa-errors.js';

/**
 * What a sealed TOTP secret is bound to: its user and factor. A sealed value copied onto another
 * user's row (by someone who can write the database but has no key) opens to nothing, so it
 * cannot make that user's account accept codes from the copier's app.
 */
export function totpSecretBinding(userId: string, factorId: string): string {
  // JSON: unambiguous whatever characters the ids hold.
  return JSON.stringify(['gatehouse totp secret', userId, factorId]);
}

/**
 * Seals a TOTP secret with TOKEN_ENCRYPTION_KEY's sealer (contract 3b: secrets sealed at rest).
 * `sealer` is null when the key is not set: enrolment is then refused (`409 MFA_NOT_CONFIGURED`
 * naming the variable), never sealed with a per-process key that the next start could not open.
 */
export function sealTotpSecret(
  sealer: TokenSealer | null,
  secret: string,
  owner: { userId: string; factorId: string },
): string {
  if (!sealer) throw mfaNotConfigured('TOKEN_ENCRYPTION_KEY');
  return sealer.seal(secret, totpSecretBinding(owner.userId, owner.factorId));
}

/**
 * The secret, or null when it does not open here (another key, another user's row, tampering):
 * the caller refuses the code as it would a wrong one.
 */
export function openTotpSecret(
  sealer: TokenSealer | null,
  sealedSecret: string,
  owner: { userId: string; factorId: string },
): string | null {
  if (!sealer) throw mfaNotConfigured('TOKEN_ENCRYPTION_KEY');
  return sealer.open(sealedSecret, totpSecretBinding(owner.userId, owner.factorId));
}
