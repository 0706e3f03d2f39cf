import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { tokenBinding } from '../../src/domain/sso/token-sealer.port.js';

const SESSION = { issuer: 'https://idp.example', subject: 'ann', sid: 'sid-1' };
const BOUND = tokenBinding('refresh_token', SESSION);

describe('AesTokenSealer', () => {
  const key = randomBytes(32).toString('base64');

  it('round-trips a token and never shows it in the sealed form', () => {
    const sealer = AesTokenSealer.fromBase64(key);
    const sealed = sealer.seal('refresh-token-value', BOUND);
    expect(sealed).not.toContain('refresh-token-value');
    expect(sealed).toMatch(/^v2\./);
    expect(sealer.open(sealed, BOUND)).toBe('refresh-token-value');
  });

  it('uses a fresh IV each time', () => {
    const sealer = AesTokenSealer.fromBase64(key);
    expect(sealer.seal('same', BOUND)).not.toBe(sealer.seal('same', BOUND));
  });

  it('opens nothing sealed with another key, tampered, or malformed', () => {
    const sealed = AesTokenSealer.fromBase64(key).seal('secret', BOUND);
    expect(AesTokenSealer.random().open(sealed, BOUND)).toBeNull();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(AesTokenSealer.fromBase64(key).open(parts.join('.'), BOUND)).toBeNull();
    expect(AesTokenSealer.fromBase64(key).open('garbage', BOUND)).toBeNull();
    expect(AesTokenSealer.fromBase64(key).open(`${sealed}.more`, BOUND)).toBeNull();
  });

  // Issue 11, finding 11.
  it('opens a value only with the binding it was sealed for: another slot or session gets null', () => {
    const sealer = AesTokenSealer.fromBase64(key);
    const sealed = sealer.seal('refresh', BOUND);
    expect(sealer.open(sealed, tokenBinding('access_token', SESSION))).toBeNull();
    expect(sealer.open(sealed, tokenBinding('refresh_token', { ...SESSION, subject: 'bob' }))).toBeNull();
    expect(sealer.open(sealed, tokenBinding('refresh_token', { ...SESSION, sid: null }))).toBeNull();
    expect(
      sealer.open(sealed, tokenBinding('refresh_token', { ...SESSION, issuer: 'https://other.example' })),
    ).toBeNull();
  });

  it('refuses a truncated authentication tag, which GCM alone would accept', () => {
    const raw = Buffer.from(key, 'base64');
    const iv = randomBytes(12);
    // A value sealed with a 4-byte tag: forging one takes about 2^32 tries, not 2^128.
    const cipher = createCipheriv('aes-256-gcm', raw, iv, { authTagLength: 4 });
    cipher.setAAD(Buffer.from(BOUND));
    const ciphertext = Buffer.concat([cipher.update('forged', 'utf8'), cipher.final()]);
    const short = ['v2', iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
    expect(AesTokenSealer.fromBase64(key).open(short, BOUND)).toBeNull();
    const sealed = AesTokenSealer.fromBase64(key).seal('secret', BOUND).split('.');
    sealed[2] = Buffer.from(sealed[2]!, 'base64url').subarray(0, 12).toString('base64url');
    expect(AesTokenSealer.fromBase64(key).open(sealed.join('.'), BOUND)).toBeNull();
  });

  it('still opens a v1 value, sealed before bindings, until such sessions have ended', () => {
    const raw = Buffer.from(key, 'base64');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', raw, iv);
    const ciphertext = Buffer.concat([cipher.update('legacy', 'utf8'), cipher.final()]);
    const v1 = [
      'v1',
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ciphertext.toString('base64url'),
    ].join('.');
    expect(AesTokenSealer.fromBase64(key).open(v1, BOUND)).toBe('legacy');
  });

  it('after a rotation, opens what the previous keys sealed and seals with the current key only', () => {
    const previous = randomBytes(32).toString('base64');
    const older = randomBytes(32).toString('base64');
    const fromPrevious = AesTokenSealer.fromBase64(previous).seal('old-refresh', BOUND);
    const fromOlder = AesTokenSealer.fromBase64(older).seal('older-refresh', BOUND);
    const rotated = AesTokenSealer.fromBase64(key, [previous, older]);
    expect(rotated.open(fromPrevious, BOUND)).toBe('old-refresh');
    expect(rotated.open(fromOlder, BOUND)).toBe('older-refresh');
    const fresh = rotated.seal('new-refresh', BOUND);
    expect(AesTokenSealer.fromBase64(key).open(fresh, BOUND)).toBe('new-refresh');
    expect(AesTokenSealer.fromBase64(previous).open(fresh, BOUND)).toBeNull();
    expect(AesTokenSealer.fromBase64(key).open(fromPrevious, BOUND)).toBeNull();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => AesTokenSealer.fromBase64(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
