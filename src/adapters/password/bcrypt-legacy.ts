import bcrypt from 'bcryptjs';

/**
 * Verifier for imported bcrypt hashes (`$2a$`, `$2b$`, `$2y$`), legacy only.
 *
 * bcrypt only looks at the first 72 bytes of the (UTF-8) password: two passwords that share
 * their first 72 bytes verify alike. That is why a bcrypt hash is always re-hashed to argon2id
 * at the next successful login (`needsRehash` is true for every bcrypt hash), after which the
 * whole password counts.
 *
 * bcryptjs is pure JavaScript; its async `compare` works in small chunks and yields to the
 * event loop between them, so a verify does not block other requests.
 */

/**
 * The highest cost a stored hash may have: each step doubles the work, 12 is today's usual setting
 * and 14 already about a second here in pure JavaScript.
 */
export const MAX_BCRYPT_COST = 14;

const FORMAT = /^\$2[aby]\$([0-9]{2})\$[./A-Za-z0-9]{53}$/;

export function isBcryptHash(stored: string): boolean {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const cost = Number(match[1]);
  return cost >= 4 && cost <= MAX_BCRYPT_COST;
}

/** True when `password` matches; false for a wrong password or a malformed hash (never throws). */
export async function verifyBcrypt(stored: string, password: string): Promise<boolean> {
  if (!isBcryptHash(stored)) return false;
  try {
    return await bcrypt.compare(password, stored);
  } catch {
    return false;
  }
}
