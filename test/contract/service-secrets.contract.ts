import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ServiceSecrets } from '../../src/domain/shared/service-secrets.port.js';

/** The behaviour every ServiceSecrets must show. `open` gives an empty store. */
export function serviceSecretsContract(open: () => Promise<ServiceSecrets>): void {
  describe('ServiceSecrets contract', () => {
    let secrets: ServiceSecrets;
    beforeEach(async () => {
      secrets = await open();
    });

    it('keeps the first candidate of a name and hands it back for every later one', async () => {
      const first = randomBytes(32);
      expect(Buffer.from(await secrets.obtain('device_proof_key', first))).toEqual(first);
      expect(Buffer.from(await secrets.obtain('device_proof_key', randomBytes(32)))).toEqual(first);
      const other = randomBytes(32);
      expect(Buffer.from(await secrets.obtain('another_key', other))).toEqual(other);
    });

    it('replaces a secret only while it is still the value the caller read (compare-and-set)', async () => {
      const first = randomBytes(32);
      await secrets.obtain('device_proof_key', first);
      const stale = randomBytes(32);
      await secrets.replace('device_proof_key', stale, randomBytes(40));
      expect(Buffer.from(await secrets.obtain('device_proof_key', randomBytes(32)))).toEqual(first);
      const next = randomBytes(40);
      await secrets.replace('device_proof_key', first, next);
      expect(Buffer.from(await secrets.obtain('device_proof_key', randomBytes(32)))).toEqual(next);
      // Another name is untouched, and an absent name is not created.
      await secrets.replace('absent_key', first, next);
      const absent = randomBytes(32);
      expect(Buffer.from(await secrets.obtain('absent_key', absent))).toEqual(absent);
    });

    it('gives every one of many concurrent callers the same secret', async () => {
      const obtained = await Promise.all(
        Array.from({ length: 20 }, () => secrets.obtain('raced_key', randomBytes(32))),
      );
      const distinct = new Set(obtained.map((secret) => Buffer.from(secret).toString('hex')));
      expect(distinct.size).toBe(1);
    });
  });
}
