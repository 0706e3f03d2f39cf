import { pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Verifier for hashes imported from Django's `PBKDF2PasswordHasher`:
 * `pbkdf2_sha256$<iterations>$<salt>$<base64 of the derived key>`.
 * Legacy only: such hashes are re-hashed to argon2id at the next successful login.
 */

const pbkdf2Async = promisify(pbkdf2);

export const DJANGO_PBKDF2_PREFIX = 'pbkdf2_sha256$';

/**
 * The most iterations a stored hash may ask for: Django's own default is 1,000,000 (5.2) to
 * 1,200,000 (6.0). Past this an import is refused and a stored hash is treated as unusable, so one
 * account cannot make each of its logins cost seconds of a hashing thread.
 */
export const MAX_DJANGO_PBKDF2_ITERATIONS = 1_500_000;

const FORMAT = /^pbkdf2_sha256\$([1-9][0-9]{0,7})\$([^$]{1,128})\$([A-Za-z0-9+/]{22,88}={0,2})$/;

interface DjangoPbkdf2Hash {
  iterations: number;
  salt: string;
  derivedKey: Buffer;
}

function parse(stored: string): DjangoPbkdf2Hash | undefined {
  const match = FORMAT.exec(stored);
  if (!match) return undefined;
  const iterations = Number(match[1]);
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_DJANGO_PBKDF2_ITERATIONS) {
    return undefined;
  }
  const encoded = match[3]!;
  const derivedKey = Buffer.from(encoded, 'base64');
  // Buffer.from is lenient: insist on a canonical encoding of a 16..64-byte key.
  if (derivedKey.length < 16 || derivedKey.length > 64) return undefined;
  if (derivedKey.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) return undefined;
  return { iterations, salt: match[2]!, derivedKey };
}

export function isDjangoPbkdf2Hash(stored: string): boolean {
  return parse(stored) !== undefined;
}

/** True when `password` matches; false for a wrong password or a malformed hash (never throws). */
export async function verifyDjangoPbkdf2(stored: string, password: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  try {
    // Django encodes both password and salt as UTF-8; the async form runs on the libuv thread pool.
    const candidate = await pbkdf2Async(
      Buffer.from(password, 'utf8'),
      Buffer.from(parsed.salt, 'utf8'),
      parsed.iterations,
      parsed.derivedKey.length,
      'sha256',
    );
    return timingSafeEqual(candidate, parsed.derivedKey);
  } catch {
    return false;
  }
}
