import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';

/** Sealed with the binding as additional authenticated data. */
const VERSION = 'v2';
/** Sealed before bindings: opened without one until such sessions have ended. */
const UNBOUND_VERSION = 'v1';
const IV_BYTES = 12;
/** The full 128-bit tag, required: GCM would otherwise accept a truncated one, down to 4 bytes. */
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a random 96-bit IV per value: `v2.<iv>.<tag>.<ciphertext>` in base64url, the
 * binding authenticated with it (AAD). The authentication tag makes a tampered, foreign-key or
 * wrongly bound value open as null, and tells which of the keys sealed a value: after a rotation
 * the former keys still open what they sealed, and only the current key seals.
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

  seal(plain: string, binding: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(binding, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      VERSION,
      iv.toString('base64url'),
      tag.toString('base64url'),
      ciphertext.toString('base64url'),
    ].join('.');
  }

  open(sealed: string, binding: string): string | null {
    const parts = sealed.split('.');
    if (parts.length !== 4) return null;
    const [version, iv, tag, ciphertext] = parts.map((part, i) =>
      i === 0 ? part : Buffer.from(part, 'base64url'),
    ) as [string, Buffer, Buffer, Buffer];
    if (version !== VERSION && version !== UNBOUND_VERSION) return null;
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return null;
    const aad = version === VERSION ? Buffer.from(binding, 'utf8') : null;
    for (const key of this.openingKeys) {
      const opened = openWith(key, iv, tag, ciphertext, aad);
      if (opened !== null) return opened;
    }
    return null;
  }
}

function openWith(
  key: Buffer,
  iv: Buffer,
  tag: Buffer,
  ciphertext: Buffer,
  aad: Buffer | null,
): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    if (aad) decipher.setAAD(aad);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
