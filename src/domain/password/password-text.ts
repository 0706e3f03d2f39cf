import type { PasswordHasher } from './password-hasher.port.js';

/**
 * The form in which a password is hashed and checked (NIST SP 800-63B 5.1.1.2, "SHOULD apply ...
 * NFKC or NFKD"): "é" typed precomposed (macOS, most keyboards) or decomposed (some input methods),
 * and fullwidth letters from an East Asian IME, are then the same password. NFKC rather than NFC
 * because the compatibility forms are exactly what differs between keyboards and input methods;
 * NFKC rather than NFKD because it keeps the precomposed letters, so a password's length in
 * characters stays what its owner typed (the policy counts it).
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** A new password, hashed in its normal form. */
export function hashPassword(hasher: PasswordHasher, password: string): Promise<string> {
  return hasher.hash(normalizePassword(password));
}

/**
 * Checks a presented password against a stored hash. Hashes made before normalisation hold the
 * raw form: it is tried too (only when it differs), and a match asks for a re-hash, so the next
 * successful login stores the normal form. Without a hash (unknown user, SSO-only account), the
 * same number of dummy verifications runs: the work depends on the input, never on the account.
 */
export async function verifyPassword(
  hasher: PasswordHasher,
  stored: string | null | undefined,
  presented: string,
): Promise<{ verified: boolean; rehash: boolean }> {
  const normal = normalizePassword(presented);
  const forms = normal === presented ? [normal] : [normal, presented];
  if (!stored) {
    for (const form of forms) await hasher.verifyDummy(form);
    return { verified: false, rehash: false };
  }
  if (await hasher.verify(stored, normal)) return { verified: true, rehash: hasher.needsRehash(stored) };
  if (forms.length === 2 && (await hasher.verify(stored, presented))) return { verified: true, rehash: true };
  return { verified: false, rehash: false };
}
