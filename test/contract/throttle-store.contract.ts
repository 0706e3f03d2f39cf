import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThrottleStore } from '../../src/domain/login/throttle-store.port.js';

export interface ThrottleStoreHandle {
  throttle: ThrottleStore;
  close(): Promise<void>;
}

const T0 = new Date('2030-01-01T00:00:00.000Z');

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

/** The behaviour every ThrottleStore must show. `open` gives an empty store. */
export function throttleStoreContract(open: () => Promise<ThrottleStoreHandle>): void {
  describe('ThrottleStore contract', () => {
    let handle: ThrottleStoreHandle;
    let throttle: ThrottleStore;
    const windowS = 900;

    beforeEach(async () => {
      handle = await open();
      throttle = handle.throttle;
    });
    afterEach(async () => {
      await handle.close();
    });

    const reserveAt = (key: string, seconds: number, limit = 3) =>
      throttle.reserve(key, limit, at(seconds), windowS);

    it('grants attempts per key up to the limit, counting each, then refuses until the window ends', async () => {
      expect(await reserveAt('user:alice', 0)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:alice', 1)).toEqual({ granted: true, used: 2 });
      expect(await reserveAt('user:bob', 1)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:alice', 2)).toEqual({ granted: true, used: 3 });
      // The window began with the first attempt, at 0: it ends at 0 + windowS.
      expect(await reserveAt('user:alice', 3)).toEqual({ granted: false, retryAt: at(windowS) });
      expect(await reserveAt('user:alice', windowS - 1)).toEqual({ granted: false, retryAt: at(windowS) });
      // A refusal takes nothing: the window did not move, and the next one starts afresh.
      expect(await reserveAt('user:alice', windowS)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('addr:192.0.2.1', windowS, 30)).toEqual({ granted: true, used: 1 });
    });

    it('never grants more than the limit under 50 parallel attempts (reserve is atomic)', async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => throttle.reserve('user:parallel', 5, at(i % 3), windowS)),
      );
      const granted = answers.filter((answer) => answer.granted);
      expect(granted).toHaveLength(5);
      expect(granted.map((answer) => (answer.granted ? answer.used : 0)).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(answers.filter((answer) => !answer.granted)).toHaveLength(45);
    });

    it('release gives one attempt back, never below zero, and keeps the window', async () => {
      await reserveAt('user:carol', 0);
      await reserveAt('user:carol', 1);
      await reserveAt('user:carol', 2);
      await throttle.release('user:carol');
      expect(await reserveAt('user:carol', 3)).toEqual({ granted: true, used: 3 });
      for (let i = 0; i < 5; i++) await throttle.release('user:carol');
      expect(await reserveAt('user:carol', 4)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:carol', 5)).toEqual({ granted: true, used: 2 });
      expect(await reserveAt('user:carol', 6)).toEqual({ granted: true, used: 3 });
      expect(await reserveAt('user:carol', 7)).toEqual({ granted: false, retryAt: at(windowS) });
      await expect(throttle.release('user:unknown')).resolves.toBeUndefined();
    });

    it('reset forgets one key only', async () => {
      for (let i = 0; i < 3; i++) {
        await reserveAt('user:frank', i);
        await reserveAt('user:grace', i);
      }
      await throttle.reset('user:frank');
      expect(await reserveAt('user:frank', 10)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:grace', 10)).toEqual({ granted: false, retryAt: at(windowS) });
      await expect(throttle.reset('user:unknown')).resolves.toBeUndefined();
    });

    it('purges keys whose window began before the cutoff, up to the limit', async () => {
      for (const key of ['k:old-1', 'k:old-2', 'k:old-3', 'k:old-4']) await reserveAt(key, 0, 1);
      await reserveAt('k:recent', 2000, 1);

      const cutoff = at(1000);
      expect(await throttle.purgeOlderThan(cutoff, 3)).toBe(3);
      expect(await throttle.purgeOlderThan(cutoff, 3)).toBe(1);
      expect(await throttle.purgeOlderThan(cutoff, 3)).toBe(0);
      // Purged keys start over (long window: only a purge can have emptied them); kept keys keep counting.
      for (const key of ['k:old-1', 'k:old-2', 'k:old-3', 'k:old-4']) {
        expect(await throttle.reserve(key, 1, at(2001), 100_000)).toEqual({ granted: true, used: 1 });
      }
      expect(await throttle.reserve('k:recent', 1, at(2001), 100_000)).toEqual({
        granted: false,
        retryAt: at(102_000),
      });
    });
  });
}
