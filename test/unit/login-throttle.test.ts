import { describe, expect, it } from 'vitest';
import { ADDRESS_FAILURE_FACTOR, LoginThrottle } from '../../src/domain/login/login-throttle.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { MemoryThrottleStore } from '../support/memory-throttle-store.js';

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

/** One failed attempt: reserve, then settle as a failure. */
async function fail(throttle: LoginThrottle, keys: ReturnType<typeof LoginThrottle.keys>, now: Date) {
  return throttle.failed(await throttle.reserve(keys, now));
}

describe('LoginThrottle.keys', () => {
  it('keys the account case-insensitively and the client address as given', () => {
    expect(LoginThrottle.keys('Ann', '10.0.0.1')).toEqual({ user: 'user:ann', address: 'addr:10.0.0.1' });
    expect(LoginThrottle.keys('ANN', null)).toEqual({ user: 'user:ann', address: null });
  });
});

describe('LoginThrottle per account', () => {
  const keys = LoginThrottle.keys('ann', '10.0.0.1');

  it('lets maxFailures failures through, the last one blocking, then refuses until the window ends', async () => {
    const { throttle } = setup();
    expect(await fail(throttle, keys, at(0))).toEqual({ blocked: false });
    expect(await fail(throttle, keys, at(10))).toEqual({ blocked: false });
    expect(await fail(throttle, keys, at(20))).toEqual({ blocked: true });

    const error = await refusal(throttle.reserve(keys, at(30)));
    expect(error.code).toBe('TOO_MANY_ATTEMPTS');
    // The window began with the first attempt, at 0.
    expect(error.retryAfterS).toBe(870);
    await expect(throttle.reserve(keys, at(900))).resolves.toEqual({ keys, lastPlace: false });
  });

  it('never lets more than maxFailures parallel attempts reach the password check', async () => {
    const { throttle } = setup({ maxFailures: 5, windowS: 900 });
    const answers = await Promise.allSettled(Array.from({ length: 40 }, () => throttle.reserve(keys, at(0))));
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(5);
  });

  it('tells the whole seconds to wait, rounded up, at least 1', async () => {
    const { throttle, store } = setup();
    store.budgets.set(keys.user, { used: 3, windowStart: at(-897.5).getTime() });
    expect((await refusal(throttle.reserve(keys, at(0)))).retryAfterS).toBe(3);
    expect((await refusal(throttle.reserve(keys, at(1.9)))).retryAfterS).toBe(1);
    expect((await refusal(throttle.reserve(keys, at(2.499)))).retryAfterS).toBe(1);
    await expect(throttle.reserve(keys, at(2.5))).resolves.toHaveProperty('keys');
  });

  it('takes a place in every budget or in none', async () => {
    const { throttle, store } = setup();
    store.budgets.set(keys.address!, { used: 30, windowStart: at(-840).getTime() });
    expect((await refusal(throttle.reserve(keys, at(0)))).retryAfterS).toBe(60);
    // The account's place, taken before the address refused, was given back.
    expect(store.budgets.get(keys.user)?.used).toBe(0);
  });

  it('a success forgives the account and gives the address its place back', async () => {
    const { throttle, store } = setup();
    await fail(throttle, keys, at(0));
    await fail(throttle, keys, at(0));
    await throttle.succeeded(await throttle.reserve(keys, at(1)));
    expect(store.budgets.has(keys.user)).toBe(false);
    expect(await fail(throttle, keys, at(2))).toEqual({ blocked: false });
    expect(await fail(throttle, keys, at(2))).toEqual({ blocked: false });
    // The address keeps its failures (2 + 2): a success on one account does not clear them.
    expect(store.budgets.get(keys.address!)?.used).toBe(4);
  });

  it('a success on the last place does not block', async () => {
    const { throttle } = setup();
    await fail(throttle, keys, at(0));
    await fail(throttle, keys, at(0));
    const last = await throttle.reserve(keys, at(0));
    expect(last.lastPlace).toBe(true);
    await throttle.succeeded(last);
    await expect(throttle.reserve(keys, at(1))).resolves.toEqual({ keys, lastPlace: false });
  });

  it('starts counting afresh once the window has passed', async () => {
    const { throttle } = setup({ maxFailures: 3, windowS: 60 });
    await fail(throttle, keys, at(0));
    await fail(throttle, keys, at(30));
    expect(await fail(throttle, keys, at(61))).toEqual({ blocked: false });
    expect(await fail(throttle, keys, at(62))).toEqual({ blocked: false });
    expect(await fail(throttle, keys, at(63))).toEqual({ blocked: true });
  });

  it('throttles one account without touching another', async () => {
    const { throttle } = setup();
    for (let i = 0; i < 3; i++) await fail(throttle, keys, at(0));
    await expect(throttle.reserve(keys, at(0))).rejects.toThrow(DomainError);
    await expect(throttle.reserve(LoginThrottle.keys('bob', '10.0.0.1'), at(0))).resolves.toHaveProperty(
      'keys',
    );
  });
});

describe('LoginThrottle per client address', () => {
  it('allows an address ten times the failures of one account', async () => {
    expect(ADDRESS_FAILURE_FACTOR).toBe(10);
    const { throttle } = setup({ maxFailures: 3, windowS: 900 });
    // 29 failures on 29 accounts from one address: no account and not the address is blocked.
    for (let i = 0; i < 29; i++) {
      expect(await fail(throttle, LoginThrottle.keys(`user${i}`, '10.0.0.9'), at(0))).toEqual({
        blocked: false,
      });
    }
    // The 30th takes the address's last place: it blocks the address for every account, not other addresses.
    expect(await fail(throttle, LoginThrottle.keys('user29', '10.0.0.9'), at(0))).toEqual({ blocked: true });
    const error = await refusal(throttle.reserve(LoginThrottle.keys('fresh', '10.0.0.9'), at(0)));
    expect(error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(error.retryAfterS).toBe(900);
    await expect(throttle.reserve(LoginThrottle.keys('fresh', '10.0.0.10'), at(0))).resolves.toHaveProperty(
      'keys',
    );
    await expect(throttle.reserve(LoginThrottle.keys('fresh', null), at(0))).resolves.toHaveProperty('keys');
  });

  it('counts only the account when the address is unknown', async () => {
    const { throttle, store } = setup();
    await fail(throttle, LoginThrottle.keys('ann', null), at(0));
    expect([...store.budgets.keys()]).toEqual(['user:ann']);
  });
});

describe('LoginThrottle, what it gives back', () => {
  it("keys a recognised device's attempts to that device, not to the account", () => {
    expect(LoginThrottle.keys('Ann', '10.0.0.1', 'd1')).toEqual({
      user: 'device:d1',
      address: 'addr:10.0.0.1',
    });
  });

  it('says why it refuses', async () => {
    const { throttle } = setup({ maxFailures: 1, windowS: 900 });
    const keys = LoginThrottle.keys('ann', null);
    await fail(throttle, keys, at(0));
    expect((await refusal(throttle.reserve(keys, at(1)))).message).toBe(
      'Too many failed attempts. Try again later.',
    );
  });

  it('gives back exactly the places it took when a later budget refuses', async () => {
    const { throttle, store } = setup();
    const keys = LoginThrottle.keys('ann', '10.0.0.1');
    store.rows.set(keys.address!, { used: 30, windowStart: at(0).getTime() });
    await refusal(throttle.reserve(keys, at(1)));
    expect(store.released).toEqual(['user:ann']);
  });

  it('gives nothing back to an address it did not count (unknown address)', async () => {
    const { throttle, store } = setup();
    await throttle.succeeded(await throttle.reserve(LoginThrottle.keys('ann', null), at(0)));
    expect(store.released).toEqual([]);
  });

  it("uses a store's settle capability for a success's two writes, and reset alone without an address", async () => {
    const store = new MemoryThrottleStore();
    const settled: Array<[string, string]> = [];
    const settling = Object.assign(Object.create(store) as MemoryThrottleStore, {
      capabilities: {
        settle: {
          resetAndRelease: async (forget: string, giveBack: string) => {
            settled.push([forget, giveBack]);
            await store.reset(forget);
            await store.release(giveBack);
          },
        },
      },
    });
    const throttle = new LoginThrottle(settling, { maxFailures: 3, windowS: 900 });
    const keys = LoginThrottle.keys('ann', '10.0.0.1');
    await throttle.succeeded(await throttle.reserve(keys, at(0)));
    expect(settled).toEqual([['user:ann', 'addr:10.0.0.1']]);
    expect(store.released).toEqual(['addr:10.0.0.1']);
    await throttle.succeeded(await throttle.reserve(LoginThrottle.keys('bob', null), at(1)));
    expect(settled).toHaveLength(1);
    expect(store.rows.has('user:bob')).toBe(false);
  });
  it("uses a store's reserveEach capability for an attempt's budgets, giving back what a refusal took", async () => {
    const store = new MemoryThrottleStore();
    const batches: string[][] = [];
    const reserving = Object.assign(Object.create(store) as MemoryThrottleStore, {
      capabilities: {
        reserveEach: {
          reserveEach: async (
            budgets: ReadonlyArray<{ key: string; limit: number }>,
            now: Date,
            windowS: number,
          ) => {
            batches.push(budgets.map((budget) => budget.key));
            return Promise.all(budgets.map(({ key, limit }) => store.reserve(key, limit, now, windowS)));
          },
        },
      },
    });
    const throttle = new LoginThrottle(reserving, { maxFailures: 2, windowS: 900 });
    const keys = LoginThrottle.keys('ann', '10.0.0.1');
    expect(throttle.failed(await throttle.reserve(keys, at(0)))).toEqual({ blocked: false });
    // The second failure takes the account's last place: it blocks.
    expect(throttle.failed(await throttle.reserve(keys, at(1)))).toEqual({ blocked: true });
    expect(batches).toEqual([
      ['user:ann', 'addr:10.0.0.1'],
      ['user:ann', 'addr:10.0.0.1'],
    ]);
    // Refused by the account: the address's place, taken in the same operation, is given back.
    expect((await refusal(throttle.reserve(keys, at(2)))).retryAfterS).toBe(898);
    expect(store.released).toEqual(['addr:10.0.0.1']);
    expect(store.rows.get('addr:10.0.0.1')?.used).toBe(2);
    // One budget alone (no address) is a plain reserve.
    await throttle.reserve(LoginThrottle.keys('bob', null), at(3));
    expect(batches).toHaveLength(3);
    expect(store.rows.get('user:bob')?.used).toBe(1);
  });
});
