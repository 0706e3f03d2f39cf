import { describe, expect, it } from 'vitest';
import type { PasswordHasher } from '../../src/domain/password/password-hasher.port.js';

const ARGON2ID_PHC = /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/** The behaviour every PasswordHasher must show. Call inside a test file. */
export function passwordHasherContract(name: string, makeHasher: () => PasswordHasher): void {
  describe(`PasswordHasher contract: ${name}`, () => {
    const password = 'correct horse battery staple';

    it('verifies a password against its own hash', async () => {
      const hasher = makeHasher();
      const stored = await hasher.hash(password);
      await expect(hasher.verify(stored, password)).resolves.toBe(true);
    });

    it('refuses a wrong password', async () => {
      const hasher = makeHasher();
      const stored = await hasher.hash(password);
      await expect(hasher.verify(stored, 'correct horse battery stapler')).resolves.toBe(false);
      await expect(hasher.verify(stored, 'Correct horse battery staple')).resolves.toBe(false);
      await expect(hasher.verify(stored, '')).resolves.toBe(false);
    });

    it('produces an argon2id PHC string, supported and not needing a re-hash', async () => {
      const hasher = makeHasher();
      const stored = await hasher.hash(password);
      expect(stored).toMatch(ARGON2ID_PHC);
      expect(hasher.isSupportedHash(stored)).toBe(true);
      expect(hasher.needsRehash(stored)).toBe(false);
    });

    it('salts: two hashes of the same password differ', async () => {
      const hasher = makeHasher();
      const [first, second] = await Promise.all([hasher.hash(password), hasher.hash(password)]);
      expect(first).not.toBe(second);
      await expect(hasher.verify(second, password)).resolves.toBe(true);
    });

    it('answers false, without throwing, for a malformed or unknown stored hash', async () => {
      const hasher = makeHasher();
      const good = await hasher.hash(password);
      const malformed = [
        '',
        '!',
        'not a hash',
        '$argon2id$',
        '$argon2id$v=19$m=19456,t=2,p=1$',
        good.replace(/\$[^$]+$/, '$@@@@'),
        '$argon2id$v=19$m=99999999999,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA',
        'pbkdf2_sha256$$$',
        'pbkdf2_sha256$abc$salt$aGFzaA==',
        'pbkdf2_sha256$999999999999$salt$FQCNpiZpTb0zub+HBsH6TOwyRxJ19FwvjbweatNmK/Y=',
        '$2b$99$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
        '$2b$10$short',
        '$2x$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
        'x'.repeat(10_000),
      ];
      // Well-formed but corrupted: cannot verify, whatever isSupportedHash says.
      for (const stored of [good.slice(0, -5), good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A')]) {
        await expect(hasher.verify(stored, password), stored).resolves.toBe(false);
      }
      for (const stored of malformed) {
        await expect(hasher.verify(stored, password), stored.slice(0, 60)).resolves.toBe(false);
        expect(hasher.isSupportedHash(stored), stored.slice(0, 60)).toBe(false);
        expect(hasher.needsRehash(stored), stored.slice(0, 60)).toBe(true);
      }
    });

    it('verifyDummy resolves false', async () => {
      const hasher = makeHasher();
      await expect(hasher.verifyDummy(password)).resolves.toBe(false);
      await expect(hasher.verifyDummy('')).resolves.toBe(false);
    });

    it('round-trips unicode and 1024-character passwords', async () => {
      const hasher = makeHasher();
      const unicode = 'Ünïcødé 🔐🦄 pässwörd — 中文密码 ﷽';
      const long = Array.from({ length: 1024 }, (_, i) => String.fromCharCode(33 + ((i * 7) % 94))).join('');
      expect(long).toHaveLength(1024);
      const [unicodeHash, longHash] = await Promise.all([hasher.hash(unicode), hasher.hash(long)]);
      await expect(hasher.verify(unicodeHash, unicode)).resolves.toBe(true);
      await expect(hasher.verify(unicodeHash, unicode.normalize('NFD'))).resolves.toBe(false);
      await expect(hasher.verify(longHash, long)).resolves.toBe(true);
      await expect(hasher.verify(longHash, long.slice(0, 1023))).resolves.toBe(false);
    });

    it('does not truncate: a password differing only after byte 72 is refused', async () => {
      const hasher = makeHasher();
      const ascii = 'a'.repeat(72);
      const multibyte = 'é'.repeat(36); // 72 bytes in UTF-8
      const [asciiHash, multibyteHash] = await Promise.all([
        hasher.hash(`${ascii}X`),
        hasher.hash(`${multibyte}X`),
      ]);
      await expect(hasher.verify(asciiHash, `${ascii}X`)).resolves.toBe(true);
      await expect(hasher.verify(asciiHash, `${ascii}Y`)).resolves.toBe(false);
      await expect(hasher.verify(asciiHash, ascii)).resolves.toBe(false);
      await expect(hasher.verify(multibyteHash, `${multibyte}Y`)).resolves.toBe(false);
    });
  });
}
