import { timingSafeEqual } from 'node:crypto';
import type { Random } from '../shared/random.port.js';

/** Contract 3b: ten codes, each usable once. */
export const RECOVERY_CODE_COUNT = 10;

/**
 * Crockford's base32 alphabet in lower case: no i, l, o or u, so nothing reads as another
 * character and no word is spelled by accident. 32 symbols: 5 bits each.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const GROUP_LENGTH = 4;
/**
 * 24 symbols = 120 bits from the CSPRNG (15 bytes, 5 bits a symbol, no bias). 112 bits or more is
 * what lets a code be stored under a fast hash (ASVS 5.0 6.5.2: below 112 bits a lookup secret
 * needs a salted password hash), and puts guessing out of reach whatever the throttle.
 */
const CODE_BYTES = 15;
const CODE_LENGTH = (CODE_BYTES * 8) / 5;
const NORMALISED = new RegExp(`^[${ALPHABET}]{${CODE_LENGTH}}$`);

/**
 * Ten fresh codes, shown once as `xxxx-xxxx-xxxx-xxxx-xxxx-xxxx`: six groups of four, read
 * aloud or typed from paper without losing one's place. Distinct within the set.
 */
export function newRecoveryCodes(random: Random): string[] {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode(random));
  // Two equal draws of 120 bits mean a broken random source, not bad luck: refuse to go on.
  if (new Set(codes).size !== codes.length) throw new Error('The random source repeated itself.');
  return codes;
}

function newRecoveryCode(random: Random): string {
  const symbols = base32(random.bytes(CODE_BYTES));
  const groups: string[] = [];
  for (let i = 0; i < symbols.length; i += GROUP_LENGTH) groups.push(symbols.slice(i, i + GROUP_LENGTH));
  return groups.join('-');
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/**
 * The code as it is hashed, or null for input that cannot be one of ours. Forgiving of how
 * people copy: case, spaces and hyphens do not matter, and o, i, l (Crockford's look-alikes)
 * read as 0, 1, 1.
 */
export function normaliseRecoveryCode(input: string): string | null {
  if (input.length > 64) return null;
  const code = input.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  return NORMALISED.test(code) ? code : null;
}

/**
 * Compares two stored hashes in constant time, for a store that compares in memory (a SQL store
 * finds the row by the hash instead, which reveals nothing: the hash is keyed, so an attacker
 * cannot aim a guess at a hash prefix).
 */
export function sameRecoveryCodeHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
