import { createHmac } from 'node:crypto';
import type { RecoveryCodeHasher } from '../../domain/mfa/recovery-code-hasher.port.js';

/** The key's length (HMAC-SHA-256: a key of the hash's size). */
export const RECOVERY_CODE_KEY_BYTES = 32;

/**
 * HMAC-SHA-256 of the user id and the code, under a key every instance shares (`key` reads it,
 * e.g. a `KeptSecret` as the device-proof key is): 64 hex characters.
 *
 * Why a fast hash and not argon2id: a code holds 120 random bits (recovery-codes.ts), so no
 * amount of hashing per guess changes how hopeless guessing is; a slow hash only protects secrets
 * people choose. ASVS 5.0 6.5.2 allows a standard hash from 112 bits up. The key adds that a copy
 * of the database alone cannot even test a guess, and the user id binds a hash to its user: a
 * row copied onto another account matches nothing there.
 */
export class HmacRecoveryCodeHasher implements RecoveryCodeHasher {
  constructor(private readonly key: () => Promise<Uint8Array>) {}

  async hash(userId: string, code: string): Promise<string> {
    // NUL separates the fields: neither a user id nor a normalised code holds one.
    return createHmac('sha256', await this.key())
      .update(`gatehouse recovery code\0${userId}\0${code}`)
      .digest('hex');
  }
}
