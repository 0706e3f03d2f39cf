import { describe, expect, it } from 'vitest';
import { HmacRecoveryCodeHasher } from '../../src/adapters/crypto/hmac-recovery-code-hasher.js';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import { issueRecoveryCodes } from '../../src/domain/mfa/recovery-code-issuance.js';
import {
  newRecoveryCodes,
  normaliseRecoveryCode,
  RECOVERY_CODE_COUNT,
  sameRecoveryCodeHash,
} from '../../src/domain/mfa/recovery-codes.js';
import type { Random } from '../../src/domain/shared/random.port.js';

const FORMAT = /^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){5}$/;

/** Hands out the given byte patterns in turn, recording each request's length. */
function scripted(patterns: ((length: number) => Uint8Array)[]): Random & { asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    bytes: (length) => {
      const pattern = patterns[asked.length % patterns.length]!;
      asked.push(length);
      return pattern(length);
    },
  };
}

describe('recovery codes', () => {
  it('makes ten distinct codes of 120 random bits each, in six groups of four', () => {
    const codes = newRecoveryCodes(nodeRandom);
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(RECOVERY_CODE_COUNT).toBe(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(FORMAT);
  });

  it('spells each 15 bytes of the random source in Crockford base32, 5 bits a symbol', () => {
    const random = scripted([
      (length) => Uint8Array.from({ length }, (_, i) => i),
      (length) => new Uint8Array(length).fill(0xa5),
      // The other eight: each a byte of its own, so the set stays distinct.
      ...Array.from({ length: 8 }, (_, n) => (length: number) => new Uint8Array(length).fill(n)),
    ]);
    const codes = newRecoveryCodes(random);
    expect(random.asked).toEqual(Array(10).fill(15));
    expect(codes[0]).toBe('000g-40r4-0m30-e209-185g-r38e');
    expect(codes[1]).toBe('mpjt-b9d5-mpjt-b9d5-mpjt-b9d5');
    expect(codes[2]).toBe('0000-0000-0000-0000-0000-0000');
  });

  it('refuses to hand out a set from a random source that repeats itself', () => {
    const stuck = scripted([(length) => new Uint8Array(length)]);
    expect(() => newRecoveryCodes(stuck)).toThrow(/repeated/);
  });

  it('reads a code however it was copied: case, spaces, hyphens, look-alike letters', () => {
    const code = 'mpjt-b9d5-0123-4567-89ab-1cde';
    const plain = 'mpjtb9d50123456789ab1cde';
    expect(normaliseRecoveryCode(code)).toBe(plain);
    expect(normaliseRecoveryCode(code.toUpperCase())).toBe(plain);
    expect(normaliseRecoveryCode(' mpjt b9d5 0123 4567 89ab 1cde\n')).toBe(plain);
    expect(normaliseRecoveryCode('mpjtb9d5O123456789abIcde')).toBe(plain);
    expect(normaliseRecoveryCode('mpjtb9d5o123456789abLcde')).toBe(plain);
  });

  it.each([
    ['too short', 'mpjt-b9d5-0123-4567-89ab-1cd'],
    ['too long', 'mpjt-b9d5-0123-4567-89ab-1cde0'],
    ['not in the alphabet (u)', 'mpjt-b9d5-0123-4567-89ab-1cdu'],
    ['punctuation', 'mpjt.b9d5.0123.4567.89ab.1cde'],
    ['a very long input', `${'0'.repeat(24)}${' '.repeat(100)}`],
    ['empty', ''],
  ])('refuses what cannot be a code: %s', (_, input) => {
    expect(normaliseRecoveryCode(input)).toBeNull();
  });

  it('compares stored hashes exactly', () => {
    const hash = 'ab'.repeat(32);
    expect(sameRecoveryCodeHash(hash, `${hash}`)).toBe(true);
    expect(sameRecoveryCodeHash(hash, `${'ab'.repeat(31)}ac`)).toBe(false);
    expect(sameRecoveryCodeHash(hash, hash.slice(1))).toBe(false);
    expect(sameRecoveryCodeHash('', '')).toBe(true);
  });
});

describe('HmacRecoveryCodeHasher', () => {
  const key = new Uint8Array(32).fill(7);
  const hasher = new HmacRecoveryCodeHasher(async () => key);
  const code = 'mpjtb9d50123456789ab1cde';

  it('gives the same 256-bit hex hash for the same user and code, never the code itself', async () => {
    const hash = await hasher.hash('u-1', code);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await hasher.hash('u-1', code)).toBe(hash);
    expect(hash).not.toContain(code);
  });

  it('binds a hash to its user and to the key', async () => {
    const hash = await hasher.hash('u-1', code);
    expect(await hasher.hash('u-2', code)).not.toBe(hash);
    expect(await hasher.hash('u-1', 'mpjtb9d50123456789ab1cdf')).not.toBe(hash);
    const otherKey = new HmacRecoveryCodeHasher(async () => new Uint8Array(32).fill(8));
    expect(await otherKey.hash('u-1', code)).not.toBe(hash);
  });

  it('keeps the user and the code apart: ("u-1", "a…") is not ("u-1a", "…")', async () => {
    expect(await hasher.hash('u-1', `a${code.slice(1)}`)).not.toBe(await hasher.hash('u-1a', code.slice(1)));
  });
});

describe('issueRecoveryCodes', () => {
  it('hashes each fresh code as it will be typed (normalised), in the order of the codes', async () => {
    const hasher = new HmacRecoveryCodeHasher(async () => new Uint8Array(32).fill(3));
    const { codes, hashes } = await issueRecoveryCodes(nodeRandom, hasher, 'u-1');
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(hashes).toHaveLength(RECOVERY_CODE_COUNT);
    for (const [i, code] of codes.entries()) {
      expect(hashes[i]).toBe(await hasher.hash('u-1', normaliseRecoveryCode(code.toUpperCase())!));
    }
  });
});
