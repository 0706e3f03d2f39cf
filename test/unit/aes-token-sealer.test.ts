import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';

describe('AesTokenSealer', () => {
  const key = randomBytes(32).toString('base64');

  it('round-trips a token and never shows it in the sealed form', () => {
    const sealer = AesTokenSealer.fromBase64(key);
    const sealed = sealer.seal('refresh-token-value');
    expect(sealed).not.toContain('refresh-token-value');
    expect(sealer.open(sealed)).toBe('refresh-token-value');
  });

  it('uses a fresh IV each time', () => {
    const sealer = AesTokenSealer.fromBase64(key);
    expect(sealer.seal('same')).not.toBe(sealer.seal('same'));
  });

  it('opens nothing sealed with another key, tampered, or malformed', () => {
    const sealed = AesTokenSealer.fromBase64(key).seal('secret');
    expect(AesTokenSealer.random().open(sealed)).toBeNull();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(AesTokenSealer.fromBase64(key).open(parts.join('.'))).toBeNull();
    expect(AesTokenSealer.fromBase64(key).open('garbage')).toBeNull();
  });

  it('after a rotation, opens what the previous keys sealed and seals with the current key only', () => {
    const previous = randomBytes(32).toString('base64');
    const older = randomBytes(32).toString('base64');
    const fromPrevious = AesTokenSealer.fromBase64(previous).seal('old-refresh');
    const fromOlder = AesTokenSealer.fromBase64(older).seal('older-refresh');
    const rotated = AesTokenSealer.fromBase64(key, [previous, older]);
    expect(rotated.open(fromPrevious)).toBe('old-refresh');
    expect(rotated.open(fromOlder)).toBe('older-refresh');
    const fresh = rotated.seal('new-refresh');
    expect(AesTokenSealer.fromBase64(key).open(fresh)).toBe('new-refresh');
    expect(AesTokenSealer.fromBase64(previous).open(fresh)).toBeNull();
    expect(AesTokenSealer.fromBase64(key).open(fromPrevious)).toBeNull();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => AesTokenSealer.fromBase64(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
