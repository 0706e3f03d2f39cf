import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThrottleStore, ThrottleStoreCapabilities } from '../domain/login/throttle-store.port.js';
import { at, declaredOf, restartContractClock, suiteName } from './contract-fixtures.js';

export type ThrottleCapability = keyof ThrottleStoreCapabilities;

const THROTTLE_CAPABILITIES: readonly ThrottleCapability[] = ['purge', 'settle', 'reserveEach'];

export interface ThrottleStoreContractOptions {
  name: string;
  /** A fresh, empty store per test; `close` is called after it. */
  open(): Promise<{ throttle: ThrottleStore; close?(): Promise<void> }>;
  declares: readonly ThrottleCapability[];
}

/** The behaviour every ThrottleStore must show, and its purge when it declares one. */
export function throttleStoreContract(options: ThrottleStoreContractOptions): void {
  restartContractClock();
  const { declares } = options;
  describe(suiteName('ThrottleStore', options.name, THROTTLE_CAPABILITIES, declares), () => {
    let handle: { throttle: ThrottleStore; close?(): Promise<void> };
    let throttle: ThrottleStore;
    const windowS = 900;

    beforeEach(async () => {
      handle = await options.open();
      throttle = handle.throttle;
    });
    afterEach(async () => {
      await handle.close?.();
    });

    const reserveAt = (key: string, seconds: number, limit = 3) =>
      throttle.reserve(key, limit, at(seconds), windowS);

    it('declares exactly the capabilities it says it has', () => {
      expect(declaredOf(throttle.capabilities, THROTTLE_CAPABILITIES)).toEqual([...declares].sort());
    });

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
      for (let i = 0; i < 3; i++) await reserveAt('user:carol', i);
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

    if (declares.includes('settle')) {
      it('capability settle: forgets the first key and gives one attempt back to the second, as reset then release', async () => {
        const settle = throttle.capabilities.settle!;
        for (let i = 0; i < 3; i++) {
          await reserveAt('user:heidi', i);
          await reserveAt('addr:192.0.2.7', i);
          await reserveAt('user:ivan', i);
        }
        await settle.resetAndRelease('user:heidi', 'addr:192.0.2.7');
        // The first key starts over; the second keeps its window with one attempt given back.
        expect(await reserveAt('user:heidi', 10)).toEqual({ granted: true, used: 1 });
        expect(await reserveAt('addr:192.0.2.7', 10)).toEqual({ granted: true, used: 3 });
        expect(await reserveAt('addr:192.0.2.7', 11)).toEqual({ granted: false, retryAt: at(windowS) });
        // Other keys are untouched; a key never below zero; unknown keys are no error.
        expect(await reserveAt('user:ivan', 10)).toEqual({ granted: false, retryAt: at(windowS) });
        for (let i = 0; i < 5; i++) await settle.resetAndRelease('user:nobody', 'user:heidi');
        expect(await reserveAt('user:heidi', 12)).toEqual({ granted: true, used: 1 });
      });
    }

    if (declares.includes('reserveEach')) {
      it('capability reserveEach: answers each budget as reserve alone would, in order, in one operation', async () => {
        const each = throttle.capabilities.reserveEach!;
        const budgets = [
          { key: 'user:judy', limit: 2 },
          { key: 'addr:192.0.2.9', limit: 3 },
        ];
        expect(await each.reserveEach(budgets, at(0), windowS)).toEqual([
          { granted: true, used: 1 },
          { granted: true, used: 1 },
        ]);
        expect(await each.reserveEach(budgets, at(1), windowS)).toEqual([
          { granted: true, used: 2 },
          { granted: true, used: 2 },
        ]);
        // The account's budget is spent: refused (nothing taken from it), the address's still taken.
        expect(await each.reserveEach(budgets, at(2), windowS)).toEqual([
          { granted: false, retryAt: at(windowS) },
          { granted: true, used: 3 },
        ]);
        expect(await reserveAt('user:judy', 3, 2)).toEqual({ granted: false, retryAt: at(windowS) });
        expect(await reserveAt('addr:192.0.2.9', 3)).toEqual({ granted: false, retryAt: at(windowS) });
        // Once the window is over, each budget starts over, as with reserve.
        expect(await each.reserveEach(budgets, at(windowS), windowS)).toEqual([
          { granted: true, used: 1 },
          { granted: true, used: 1 },
        ]);
        expect(await each.reserveEach([{ key: 'user:kim', limit: 1 }], at(0), windowS)).toEqual([
          { granted: true, used: 1 },
        ]);
      });
    }

    if (declares.includes('purge')) {
      it('capability purge: deletes keys whose window began before the cutoff, up to the limit', async () => {
        for (const key of ['k:old-1', 'k:old-2', 'k:old-3', 'k:old-4']) await reserveAt(key, 0, 1);
        await reserveAt('k:recent', 2000, 1);
        const purge = throttle.capabilities.purge!;
        const cutoff = at(1000);
        expect(await purge.purgeOlderThan(cutoff, 3)).toBe(3);
        expect(await purge.purgeOlderThan(cutoff, 3)).toBe(1);
        expect(await purge.purgeOlderThan(cutoff, 3)).toBe(0);
        // Purged keys start over (long window: only a purge can have emptied them); kept keys keep counting.
        for (const key of ['k:old-1', 'k:old-2', 'k:old-3', 'k:old-4']) {
          expect(await throttle.reserve(key, 1, at(2001), 100_000)).toEqual({ granted: true, used: 1 });
        }
        expect(await throttle.reserve('k:recent', 1, at(2001), 100_000)).toEqual({
          granted: false,
          retryAt: at(102_000),
        });
      });
    }
  });
}
