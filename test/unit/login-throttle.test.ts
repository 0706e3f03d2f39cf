import { describe, expect, it } from 'vitest';
import { ADDRESS_FAILURE_FACTOR, LoginThrottle } from '../../src/domain/login/login-throttle.js';
import type { ThrottleCheck, ThrottleStore } from '../../src/domain/login/throttle-store.port.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';

/** The ThrottleStore port in memory, following the port's documented semantics. */
class MemoryThrottleStore implements ThrottleStore {
  readonly rows = new Map<string, { failures: number; windowStart: number; blockedUntil: number | null }>();

  async check(keys: string[], now: Date): Promise<ThrottleCheck> {
    let latest: number | null = null;
    for (const key of keys) {
      const until = this.rows.get(key)?.blockedUntil ?? null;
      if (until !== null && until > now.getTime() && (latest === null || until > latest)) latest = until;
    }
    return {
      blockedUntil: latest === null ? null : new Date(latest),
      keysWithFailures: keys.filter((key) => this.rows.has(key)),
    };
  }

  async recordFailure(key: string, now: Date, windowS: number): Promise<number> {
    const row = this.rows.get(key);
    if (!row) {
      this.rows.set(key, { failures: 1, windowStart: now.getTime(), blockedUntil: null });
      return 1;
    }
    if (row.windowStart <= now.getTime() - windowS * 1000) {
      row.failures = 1;
      row.windowStart = now.getTime();
    } else {
      row.failures += 1;
    }
    return row.failures;
  }

  async block(key: string, until: Date): Promise<void> {
    const row = this.rows.get(key);
    if (row) row.blockedUntil = Math.max(row.blockedUntil ?? until.getTime(), until.getTime());
  }

  async reset(key: string): Promise<void> {
    this.rows.delete(key);
  }

  async purgeOlderThan(): Promise<number> {
    return 0;
  }
}

const T0 = new Date('2024-06-15T12:00:00.000Z');

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

function setup(settings = { maxFailures: 3, windowS: 900 }) {
  const store = new MemoryThrottleStore();
  return { store, throttle: new LoginThrottle(store, settings) };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected TOO_MANY_ATTEMPTS');
}

describe('LoginThrottle.keys', () => {
  it('keys the account case-insensitively and the client address as given', () => {
    expect(LoginThrottle.keys('Ann', '10.0.0.1')).toEqual({ user: 'user:ann', address: 'addr:10.0.0.1' });
    expect(LoginThrottle.keys('ANN', null)).toEqual({ user: 'user:ann', address: null });
  });
});

describe('LoginThrottle.delayFor', () => {
  const { throttle } = setup({ maxFailures: 3, windowS: 900 });

  it('gives no delay below the limit', () => {
    expect(throttle.delayFor(0, 3)).toBe(0);
    expect(throttle.delayFor(2, 3)).toBe(0);
  });

  it('doubles the delay with each failure past the limit', () => {
    expect([3, 4, 5, 6, 7, 8].map((failures) => throttle.delayFor(failures, 3))).toEqual([
      2, 4, 8, 16, 32, 64,
    ]);
  });

  it('caps the delay at the window, so no account is ever locked for good', () => {
    expect(throttle.delayFor(12, 3)).toBe(900);
    expect(throttle.delayFor(13, 3)).toBe(900);
    expect(throttle.delayFor(1_000_000, 3)).toBe(900);
    const short = setup({ maxFailures: 3, windowS: 10 }).throttle;
    expect(short.delayFor(5, 3)).toBe(8);
    expect(short.delayFor(6, 3)).toBe(10);
  });
});

describe('LoginThrottle per account', () => {
  const keys = LoginThrottle.keys('ann', '10.0.0.1');

  it('blocks after maxFailures failures, for 2 s, then lets the next attempt through', async () => {
    const { throttle } = setup();
    expect(await throttle.recordFailure(keys, at(0))).toEqual({ blocked: false });
    expect(await throttle.recordFailure(keys, at(0))).toEqual({ blocked: false });
    await expect(throttle.assertAllowed(keys, at(0))).resolves.toHaveProperty('accountHasFailures');
    expect(await throttle.recordFailure(keys, at(0))).toEqual({ blocked: true });

    const error = await refusal(throttle.assertAllowed(keys, at(0)));
    expect(error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(error.retryAfterS).toBe(2);
    await expect(throttle.assertAllowed(keys, at(2))).resolves.toHaveProperty('accountHasFailures');
  });

  it('grows the block with every further failure: 2, 4, 8, 16 s', async () => {
    const { throttle, store } = setup();
    const blocks: number[] = [];
    let now = 0;
    for (let failure = 1; failure <= 6; failure++) {
      await throttle.recordFailure(keys, at(now));
      const until = (await store.check([keys.user], at(now))).blockedUntil;
      const blockS = until ? (until.getTime() - at(now).getTime()) / 1000 : 0;
      blocks.push(blockS);
      now += blockS;
    }
    expect(blocks).toEqual([0, 0, 2, 4, 8, 16]);
  });

  it('tells the whole seconds to wait, rounded up, at least 1', async () => {
    const { throttle, store } = setup();
    store.rows.set(keys.user, { failures: 9, windowStart: T0.getTime(), blockedUntil: at(2.5).getTime() });
    expect((await refusal(throttle.assertAllowed(keys, at(0)))).retryAfterS).toBe(3);
    expect((await refusal(throttle.assertAllowed(keys, at(1.9)))).retryAfterS).toBe(1);
    expect((await refusal(throttle.assertAllowed(keys, at(2.499)))).retryAfterS).toBe(1);
    await expect(throttle.assertAllowed(keys, at(2.5))).resolves.toHaveProperty('accountHasFailures');
  });

  it('reports the latest block among the account and the address', async () => {
    const { throttle, store } = setup();
    store.rows.set(keys.user, { failures: 3, windowStart: T0.getTime(), blockedUntil: at(5).getTime() });
    store.rows.set(keys.address!, {
      failures: 30,
      windowStart: T0.getTime(),
      blockedUntil: at(60).getTime(),
    });
    expect((await refusal(throttle.assertAllowed(keys, at(0)))).retryAfterS).toBe(60);
  });

  it('tells whether the account has failures on record, and a success with none writes nothing', async () => {
    const { throttle, store } = setup();
    let resets = 0;
    const reset = store.reset.bind(store);
    store.reset = async (key) => {
      resets += 1;
      await reset(key);
    };
    const clean = await throttle.assertAllowed(keys, at(0));
    expect(clean).toEqual({ accountHasFailures: false });
    await throttle.recordSuccess(keys, store, clean);
    expect(resets).toBe(0);
    await throttle.recordFailure(keys, at(0));
    const failing = await throttle.assertAllowed(keys, at(0));
    expect(failing).toEqual({ accountHasFailures: true });
    await throttle.recordSuccess(keys, store, failing);
    expect(resets).toBe(1);
    expect(store.rows.has(keys.user)).toBe(false);
    // Failures of the client address alone are not the account's.
    store.rows.set(keys.address!, { failures: 3, windowStart: T0.getTime(), blockedUntil: null });
    expect(await throttle.assertAllowed(keys, at(0))).toEqual({ accountHasFailures: false });
  });

  it('forgets the failures of the account after a success', async () => {
    const { throttle, store } = setup();
    await throttle.recordFailure(keys, at(0));
    await throttle.recordFailure(keys, at(0));
    await throttle.recordSuccess(keys);
    expect(store.rows.has(keys.user)).toBe(false);
    expect(await throttle.recordFailure(keys, at(1))).toEqual({ blocked: false });
    expect(await throttle.recordFailure(keys, at(1))).toEqual({ blocked: false });
    // The address keeps counting: a success on one account does not clear an address's record.
    expect(store.rows.get(keys.address!)?.failures).toBe(4);
  });

  it('starts counting afresh once the window has passed', async () => {
    const { throttle } = setup({ maxFailures: 3, windowS: 60 });
    await throttle.recordFailure(keys, at(0));
    await throttle.recordFailure(keys, at(30));
    expect(await throttle.recordFailure(keys, at(61))).toEqual({ blocked: false });
    expect(await throttle.recordFailure(keys, at(62))).toEqual({ blocked: false });
    expect(await throttle.recordFailure(keys, at(63))).toEqual({ blocked: true });
  });

  it('throttles one account without touching another', async () => {
    const { throttle } = setup();
    for (let i = 0; i < 3; i++) await throttle.recordFailure(keys, at(0));
    await expect(throttle.assertAllowed(keys, at(0))).rejects.toThrow(DomainError);
    await expect(
      throttle.assertAllowed(LoginThrottle.keys('bob', '10.0.0.1'), at(0)),
    ).resolves.toHaveProperty('accountHasFailures');
  });
});

describe('LoginThrottle per client address', () => {
  it('allows an address ten times the failures of one account', async () => {
    expect(ADDRESS_FAILURE_FACTOR).toBe(10);
    const { throttle } = setup({ maxFailures: 3, windowS: 900 });
    // 29 failures on 29 accounts from one address: no account and not the address is blocked.
    for (let i = 0; i < 29; i++) {
      expect(await throttle.recordFailure(LoginThrottle.keys(`user${i}`, '10.0.0.9'), at(0))).toEqual({
        blocked: false,
      });
    }
    await expect(
      throttle.assertAllowed(LoginThrottle.keys('fresh', '10.0.0.9'), at(0)),
    ).resolves.toHaveProperty('accountHasFailures');
    // The 30th blocks the address for every account, not other addresses.
    expect(await throttle.recordFailure(LoginThrottle.keys('user29', '10.0.0.9'), at(0))).toEqual({
      blocked: true,
    });
    const error = await refusal(throttle.assertAllowed(LoginThrottle.keys('fresh', '10.0.0.9'), at(0)));
    expect(error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(error.retryAfterS).toBe(2);
    await expect(
      throttle.assertAllowed(LoginThrottle.keys('fresh', '10.0.0.10'), at(0)),
    ).resolves.toHaveProperty('accountHasFailures');
    await expect(throttle.assertAllowed(LoginThrottle.keys('fresh', null), at(0))).resolves.toHaveProperty(
      'accountHasFailures',
    );
  });

  it('counts only the account when the address is unknown', async () => {
    const { throttle, store } = setup();
    await throttle.recordFailure(LoginThrottle.keys('ann', null), at(0));
    expect([...store.rows.keys()]).toEqual(['user:ann']);
  });
});
