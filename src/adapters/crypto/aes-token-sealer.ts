import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';

const VERSION = 'v1';

/**
 * AES-256-GCM with a random 96-bit IV per value: `v1.<iv>.<tag>.<ciphertext>` in base64url.
 * The authentication tag makes a tampered or foreign-key value open as null, and tells which of
 * the keys sealed a value: after a rotation the former keys still open what they sealed, and only
 * the current key seals.
 */
export class AesTokenSealer implements TokenSealer {
  private readonly key: Buffer;
  private readonly openingKeys: readonly Buffer[];

  constructor(key: Buffer, previousKeys: readonly Buffer[] = []) {
    for (const candidate of [key, ...previousKeys]) {
      if (candidate.length !== 32) throw new Error('TOKEN_ENCRYPTION_KEY must be 32 bytes');
    }
    this.key = key;
    this.openingKeys = [key, ...previousKeys];
  }

  /** A key that lives as long as the process (development only). */
  static random(): AesTokenSealer {
    return new AesTokenSealer(randomBytes(32));
  }

  static fromBase64(value: string, previous: readonly string[] = []): AesTokenSealer {
    return new AesTokenSealer(
      Buffer.from(value, 'base64'),
      previous.map((key) => Buffer.from(key, 'base64')),
    );
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      VERSION,
      iv.toString('base64url'),
      tag.toString('base64url'),
      ciphertext.toString('base64url'),
    ].join('.');
  }

  open(sealed: string): string | null {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) return null;
    for (const key of this.openingKeys) {
      const opened = openWith(key, iv, tag, ciphertext);
      if (opened !== null) return opened;
    }
    return null;
  }
}

function openWith(key: Buffer, iv: string, tag: string, ciphertext: string): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return null;
  }
}
