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

    it('counts failures per key', async () => {
      expect(await throttle.recordFailure('user:alice', at(0), windowS)).toBe(1);
      expect(await throttle.recordFailure('user:alice', at(1), windowS)).toBe(2);
      expect(await throttle.recordFailure('user:alice', at(2), windowS)).toBe(3);
      expect(await throttle.recordFailure('user:bob', at(3), windowS)).toBe(1);
      expect(await throttle.recordFailure('addr:192.0.2.1', at(3), windowS)).toBe(1);
      expect(await throttle.recordFailure('user:alice', at(4), windowS)).toBe(4);
    });

    it('counts exactly under 50 parallel failures (no lost updates)', async () => {
      const counts = await Promise.all(
        Array.from({ length: 50 }, (_, i) => throttle.recordFailure('user:parallel', at(i % 5), windowS)),
      );
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await throttle.recordFailure('user:parallel', at(10), windowS)).toBe(51);
    });

    it('restarts the count once the window has passed since its first failure', async () => {
      expect(await throttle.recordFailure('user:carol', at(0), windowS)).toBe(1);
      expect(await throttle.recordFailure('user:carol', at(600), windowS)).toBe(2);
      // Still inside the window that began at 0, though long after the last failure.
      expect(await throttle.recordFailure('user:carol', at(windowS - 1), windowS)).toBe(3);
      // The window that began at 0 is over: a new one begins here.
      expect(await throttle.recordFailure('user:carol', at(windowS + 1), windowS)).toBe(1);
      expect(await throttle.recordFailure('user:carol', at(windowS + 2), windowS)).toBe(2);
      expect(await throttle.recordFailure('user:carol', at(2 * windowS), windowS)).toBe(3);
      expect(await throttle.recordFailure('user:carol', at(2 * windowS + 2), windowS)).toBe(1);
    });

    it('blocks a key; a block is extended but never shortened', async () => {
      await throttle.recordFailure('user:dave', at(0), windowS);
      expect((await throttle.check(['user:dave'], at(0))).blockedUntil).toBeNull();
      await throttle.block('user:dave', at(60));
      expect((await throttle.check(['user:dave'], at(0))).blockedUntil).toEqual(at(60));
      await throttle.block('user:dave', at(30));
      expect((await throttle.check(['user:dave'], at(0))).blockedUntil).toEqual(at(60));
      await throttle.block('user:dave', at(120));
      expect((await throttle.check(['user:dave'], at(0))).blockedUntil).toEqual(at(120));
      // A new failure keeps the block.
      await throttle.recordFailure('user:dave', at(1), windowS);
      expect((await throttle.check(['user:dave'], at(1))).blockedUntil).toEqual(at(120));
    });

    it('check gives the latest block among the keys that is still in the future', async () => {
      for (const key of ['user:erin', 'addr:192.0.2.7', 'addr:192.0.2.8']) {
        await throttle.recordFailure(key, at(0), windowS);
      }
      await throttle.block('user:erin', at(100));
      await throttle.block('addr:192.0.2.7', at(200));
      await throttle.block('addr:192.0.2.8', at(50));
      const keys = ['user:erin', 'addr:192.0.2.7', 'user:unknown'];
      expect((await throttle.check(keys, at(0))).blockedUntil).toEqual(at(200));
      expect((await throttle.check(['user:erin', 'addr:192.0.2.8'], at(0))).blockedUntil).toEqual(at(100));
      // Past blocks are ignored.
      expect((await throttle.check(['user:erin', 'addr:192.0.2.8'], at(100))).blockedUntil).toBeNull();
      expect((await throttle.check(['user:erin', 'addr:192.0.2.8'], at(75))).blockedUntil).toEqual(at(100));
      expect((await throttle.check(keys, at(150))).blockedUntil).toEqual(at(200));
      expect((await throttle.check(keys, at(200))).blockedUntil).toBeNull();
      expect((await throttle.check(['user:unknown'], at(0))).blockedUntil).toBeNull();
      expect((await throttle.check([], at(0))).blockedUntil).toBeNull();
    });

    it('check names the keys that have failures on record, blocked or not', async () => {
      expect((await throttle.check(['user:hank', 'addr:192.0.2.9'], at(0))).keysWithFailures).toEqual([]);
      await throttle.recordFailure('addr:192.0.2.9', at(0), windowS);
      expect((await throttle.check(['user:hank', 'addr:192.0.2.9'], at(0))).keysWithFailures).toEqual([
        'addr:192.0.2.9',
      ]);
      await throttle.recordFailure('user:hank', at(0), windowS);
      await throttle.block('user:hank', at(10));
      const both = await throttle.check(['user:hank', 'addr:192.0.2.9'], at(20));
      expect([...both.keysWithFailures].sort()).toEqual(['addr:192.0.2.9', 'user:hank']);
      expect(both.blockedUntil).toBeNull();
      await throttle.reset('user:hank');
      expect((await throttle.check(['user:hank'], at(20))).keysWithFailures).toEqual([]);
    });

    it('reset forgets the failures and the block of one key only', async () => {
      await throttle.recordFailure('user:frank', at(0), windowS);
      await throttle.recordFailure('user:frank', at(1), windowS);
      await throttle.block('user:frank', at(300));
      await throttle.recordFailure('user:grace', at(0), windowS);
      await throttle.block('user:grace', at(300));

      await throttle.reset('user:frank');
      expect((await throttle.check(['user:frank'], at(2))).blockedUntil).toBeNull();
      expect(await throttle.recordFailure('user:frank', at(3), windowS)).toBe(1);
      expect((await throttle.check(['user:grace'], at(2))).blockedUntil).toEqual(at(300));
      expect(await throttle.recordFailure('user:grace', at(3), windowS)).toBe(2);
      await expect(throttle.reset('user:unknown')).resolves.toBeUndefined();
    });

    it('purges entries not updated since the cutoff unless still blocked, up to the limit', async () => {
      for (const key of ['k:old-1', 'k:old-2', 'k:old-3']) await throttle.recordFailure(key, at(0), windowS);
      await throttle.recordFailure('k:old-blocked', at(0), windowS);
      await throttle.block('k:old-blocked', at(10_000));
      await throttle.recordFailure('k:old-block-over', at(0), windowS);
      await throttle.block('k:old-block-over', at(500));
      await throttle.recordFailure('k:recent', at(2000), windowS);

      const cutoff = at(1000);
      expect(await throttle.purgeOlderThan(cutoff, 2)).toBe(2);
      expect(await throttle.purgeOlderThan(cutoff, 2)).toBe(2);
      expect(await throttle.purgeOlderThan(cutoff, 2)).toBe(0);

      // Purged keys start over; kept keys keep counting.
      for (const key of ['k:old-1', 'k:old-2', 'k:old-3', 'k:old-block-over']) {
        expect(await throttle.recordFailure(key, at(2001), 100_000)).toBe(1);
      }
      expect(await throttle.recordFailure('k:old-blocked', at(2001), 100_000)).toBe(2);
      expect((await throttle.check(['k:old-blocked'], at(2001))).blockedUntil).toEqual(at(10_000));
      expect(await throttle.recordFailure('k:recent', at(2001), 100_000)).toBe(2);
    });
  });
}
