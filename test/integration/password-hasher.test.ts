import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import {
  Argon2PasswordHasher,
  DEFAULT_ARGON2_PARAMS,
} from '../../src/adapters/password/argon2-password-hasher.js';
import { isBcryptHash, verifyBcrypt } from '../../src/adapters/password/bcrypt-legacy.js';
import { isDjangoPbkdf2Hash, verifyDjangoPbkdf2 } from '../../src/adapters/password/django-pbkdf2.js';
import { passwordHasherContract } from '../contract/password-hasher.contract.js';

passwordHasherContract('Argon2PasswordHasher (default parameters)', () => new Argon2PasswordHasher());

/** Django's own test vectors (django/contrib/auth tests, 10,000 iterations). */
const DJANGO_VECTORS = [
  { password: 'letmein', stored: 'pbkdf2_sha256$10000$seasalt$FQCNpiZpTb0zub+HBsH6TOwyRxJ19FwvjbweatNmK/Y=' },
  { password: 'lètmein', stored: 'pbkdf2_sha256$10000$seasalt$CWWFdHOWwPnki7HvkcqN9iA2T3KLW1cf2uZ5kvArtVY=' },
];

/** openwall crypt_blowfish test vector, also valid as $2b$ and $2y$. */
const BCRYPT_VECTOR = {
  password: 'U*U',
  stored: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
};

function djangoHash(
  password: string,
  iterations: number,
  salt = randomBytes(9).toString('base64url'),
): string {
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), iterations, 32, 'sha256');
  return `pbkdf2_sha256$${iterations}$${salt}$${key.toString('base64')}`;
}

describe('Argon2PasswordHasher', () => {
  const hasher = new Argon2PasswordHasher();

  it('uses m=19456 KiB, t=2, p=1 by default', async () => {
    expect(DEFAULT_ARGON2_PARAMS).toEqual({ memoryKiB: 19_456, timeCost: 2, parallelism: 1 });
    expect(await hasher.hash('correct horse battery staple')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('hashes with the configured parameters', async () => {
    const custom = new Argon2PasswordHasher({ memoryKiB: 8192, timeCost: 3, parallelism: 2 });
    const stored = await custom.hash('pw');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=8192,t=3,p=2\$/);
    await expect(custom.verify(stored, 'pw')).resolves.toBe(true);
    expect(custom.needsRehash(stored)).toBe(false);
  });

  it('refuses nonsensical parameters at construction', () => {
    expect(() => new Argon2PasswordHasher({ memoryKiB: 0 })).toThrow(RangeError);
    expect(() => new Argon2PasswordHasher({ timeCost: 1.5 })).toThrow(RangeError);
    expect(() => new Argon2PasswordHasher({ parallelism: 1000 })).toThrow(RangeError);
  });

  describe('needsRehash', () => {
    it('is true for an argon2id hash with lower m, t or p than configured', async () => {
      const weakMemory = await argon2Hash('pw', { memoryCost: 4096, timeCost: 2, parallelism: 1 });
      const weakTime = await argon2Hash('pw', { memoryCost: 19_456, timeCost: 1, parallelism: 1 });
      expect(weakMemory).toMatch(/^\$argon2id\$v=19\$m=4096,t=2,p=1\$/);
      expect(hasher.needsRehash(weakMemory)).toBe(true);
      expect(hasher.needsRehash(weakTime)).toBe(true);
      const stronger = new Argon2PasswordHasher({ parallelism: 2 });
      expect(stronger.needsRehash(await hasher.hash('pw'))).toBe(true);
      // ...but it still verifies, so the login succeeds and the upgrade can happen.
      await expect(hasher.verify(weakMemory, 'pw')).resolves.toBe(true);
    });

    it('is false for an argon2id hash with stronger parameters', async () => {
      const stronger = await argon2Hash('pw', { memoryCost: 24_576, timeCost: 3, parallelism: 1 });
      expect(hasher.needsRehash(stronger)).toBe(false);
    });

    it('is true for argon2i, argon2d and argon2id version 16', async () => {
      const argon2i = await argon2Hash('pw', { algorithm: 1 as never });
      expect(argon2i).toMatch(/^\$argon2i\$/);
      expect(hasher.needsRehash(argon2i)).toBe(true);
      const v16 = await argon2Hash('pw', { version: 0 as never });
      expect(v16).toMatch(/^\$argon2id\$v=16\$/);
      expect(hasher.needsRehash(v16)).toBe(true);
    });

    it('is true for Django and bcrypt hashes', async () => {
      expect(hasher.needsRehash(DJANGO_VECTORS[0]!.stored)).toBe(true);
      expect(hasher.needsRehash(BCRYPT_VECTOR.stored)).toBe(true);
      expect(hasher.needsRehash(await bcrypt.hash('pw', 12))).toBe(true);
    });
  });

  describe('isSupportedHash', () => {
    it('accepts argon2id, Django pbkdf2_sha256 and bcrypt $2a$/$2b$/$2y$', async () => {
      expect(hasher.isSupportedHash(await hasher.hash('pw'))).toBe(true);
      expect(hasher.isSupportedHash(await argon2Hash('pw', { memoryCost: 4096 }))).toBe(true);
      for (const { stored } of DJANGO_VECTORS) expect(hasher.isSupportedHash(stored)).toBe(true);
      for (const prefix of ['$2a$', '$2b$', '$2y$']) {
        expect(hasher.isSupportedHash(BCRYPT_VECTOR.stored.replace('$2a$', prefix))).toBe(true);
      }
    });

    it('refuses other formats and absurd parameters', async () => {
      const refused = [
        '',
        'plaintext-password',
        await argon2Hash('pw', { algorithm: 1 as never }), // argon2i
        'md5$salt$1a79a4d60de6718e8e5b326e338ae533',
        'pbkdf2_sha1$10000$seasalt$oAfF6vgs95ncksAhGXOWf4Okq7o=',
        'pbkdf2_sha256$10000001$seasalt$FQCNpiZpTb0zub+HBsH6TOwyRxJ19FwvjbweatNmK/Y=',
        'pbkdf2_sha256$0$seasalt$FQCNpiZpTb0zub+HBsH6TOwyRxJ19FwvjbweatNmK/Y=',
        'pbkdf2_sha256$10000$seasalt$not base64!',
        '$2$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
        '$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
        '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe',
        '$argon2id$v=19$m=4194304,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNo',
        '$argon2id$v=19$m=19456,t=1000,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNo',
      ];
      for (const stored of refused) expect(hasher.isSupportedHash(stored), stored).toBe(false);
      await expect(hasher.verify(refused[11]!, 'pw')).resolves.toBe(false);
    });
  });

  describe('legacy Django pbkdf2_sha256', () => {
    it("verifies Django's own test vectors", async () => {
      for (const { password, stored } of DJANGO_VECTORS) {
        expect(isDjangoPbkdf2Hash(stored)).toBe(true);
        await expect(hasher.verify(stored, password)).resolves.toBe(true);
        await expect(hasher.verify(stored, `${password}z`)).resolves.toBe(false);
      }
      // 'lètmein' must be encoded as UTF-8, as Django does.
      await expect(hasher.verify(DJANGO_VECTORS[1]!.stored, 'letmein')).resolves.toBe(false);
    });

    it('verifies a hash made with node:crypto in the same format', async () => {
      const password = 'Tr0ub4dor&3 — ünïcode 🔐';
      const stored = djangoHash(password, 1000);
      expect(hasher.isSupportedHash(stored)).toBe(true);
      await expect(hasher.verify(stored, password)).resolves.toBe(true);
      await expect(hasher.verify(stored, 'Tr0ub4dor&3')).resolves.toBe(false);
      await expect(verifyDjangoPbkdf2(stored, password)).resolves.toBe(true);
    });

    it('refuses iteration counts above the cap without computing them', async () => {
      const absurd = 'pbkdf2_sha256$99999999$seasalt$FQCNpiZpTb0zub+HBsH6TOwyRxJ19FwvjbweatNmK/Y=';
      expect(isDjangoPbkdf2Hash(absurd)).toBe(false);
      await expect(verifyDjangoPbkdf2(absurd, 'letmein')).resolves.toBe(false);
    });
  });

  describe('legacy bcrypt', () => {
    it('verifies the openwall vector as $2a$, $2b$ and $2y$', async () => {
      for (const prefix of ['$2a$', '$2b$', '$2y$']) {
        const stored = BCRYPT_VECTOR.stored.replace('$2a$', prefix);
        await expect(hasher.verify(stored, BCRYPT_VECTOR.password)).resolves.toBe(true);
        await expect(hasher.verify(stored, 'U*V')).resolves.toBe(false);
      }
    });

    it('verifies $2b$ and $2a$ hashes made by bcryptjs', async () => {
      const password = 'correct horse battery staple';
      const b = await bcrypt.hash(password, 4);
      const a = await bcrypt.hash(password, `$2a$04$${(await bcrypt.genSalt(4)).slice(7)}`);
      expect(b).toMatch(/^\$2b\$04\$/);
      expect(a).toMatch(/^\$2a\$04\$/);
      for (const stored of [a, b]) {
        expect(isBcryptHash(stored)).toBe(true);
        expect(hasher.isSupportedHash(stored)).toBe(true);
        expect(hasher.needsRehash(stored)).toBe(true);
        await expect(hasher.verify(stored, password)).resolves.toBe(true);
        await expect(hasher.verify(stored, 'correct horse battery stapler')).resolves.toBe(false);
      }
    });

    it('only sees the first 72 bytes, hence the re-hash at the next login', async () => {
      const prefix = 'a'.repeat(72);
      const stored = await bcrypt.hash(`${prefix}X`, 4);
      await expect(verifyBcrypt(stored, `${prefix}Y`)).resolves.toBe(true);
      expect(hasher.needsRehash(stored)).toBe(true);
    });
  });

  describe('verifyDummy', () => {
    it('verifies against a real argon2id hash at the configured cost, so it does the same work', async () => {
      // Same work, checked structurally; the timing distributions are reported by `npm run bench`.
      await hasher.warmUp();
      const dummy = await (hasher as unknown as { getDummyHash(): Promise<string> }).getDummyHash();
      expect(dummy.startsWith('$argon2id$v=19$')).toBe(true);
      expect(hasher.needsRehash(dummy)).toBe(false);
      const stored = await hasher.hash('correct horse battery staple');
      expect(dummy.split('$')[3]).toBe(stored.split('$')[3]);
    });

    it('survives concurrent first calls', async () => {
      const fresh = new Argon2PasswordHasher();
      const results = await Promise.all([1, 2, 3].map((i) => fresh.verifyDummy(`pw${i}`)));
      expect(results).toEqual([false, false, false]);
    });
  });
});
