/**
 * Test keys come from `generateDetachedKeyPair` alone: a key straight from a key-generation job can
 * deadlock Node 20 when it is exported (test/support/detached-key-pair.ts), which stalled a CI run.
 */
import { sign, verify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDetachedKeyPair, type KeyPairShape } from '../support/detached-key-pair.js';

const ROOT = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|cts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('generateDetachedKeyPair', () => {
  const shapes: [KeyPairShape, string | null][] = [
    [{ type: 'rsa', modulusLength: 2048 }, 'sha256'],
    [{ type: 'ec', namedCurve: 'P-256' }, 'sha256'],
    [{ type: 'ed25519' }, null],
    [{ type: 'ed448' }, null],
  ];
  for (const [shape, digest] of shapes) {
    it(`makes a working ${shape.type} pair, exportable as JWKs`, () => {
      const { privateKey, publicKey } = generateDetachedKeyPair(shape);
      const data = Buffer.from('signed');
      expect(verify(digest, data, publicKey, sign(digest, data, privateKey))).toBe(true);
      expect(privateKey.asymmetricKeyType).toBe(shape.type);
      expect(privateKey.export({ format: 'jwk' }).d).toBeTruthy();
      expect(publicKey.export({ format: 'jwk' }).d).toBeUndefined();
    });
  }

  it('is the only way the tests and scripts make key pairs', () => {
    const offenders = [...sources(join(ROOT, 'test')), ...sources(join(ROOT, 'scripts'))]
      .filter((path) => !path.endsWith('detached-key-pair.ts') && !path.endsWith('detached-key-pair.test.ts'))
      .filter((path) => /generateKeyPair(Sync)?\(|subtle\.generateKey\(/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(ROOT, path));
    expect(offenders).toEqual([]);
  });
});
