import { describe, expect, it } from 'vitest';
import { AddressThrottle } from '../../src/domain/login/address-throttle.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { MemoryThrottleStore } from '../support/memory-throttle-store.js';

const T0 = new Date('2024-06-15T12:00:00.000Z');

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

function setup(limit = 3) {
  const store = new MemoryThrottleStore();
  return { store, throttle: new AddressThrottle(store, 'sso', { limit, windowS: 600 }) };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('AddressThrottle', () => {
  it('counts nothing for an unknown address', async () => {
    const { throttle, store } = setup();
    expect(await throttle.reserve(null, at(0))).toBeNull();
    await throttle.succeeded(null);
    expect(store.rows.size).toBe(0);
  });

  it("keys an address under the operation's name, apart from the login throttle's keys", async () => {
    const { throttle, store } = setup();
    expect(await throttle.reserve('10.0.0.1', at(0))).toEqual({ key: 'sso-addr:10.0.0.1' });
    expect([...store.rows.keys()]).toEqual(['sso-addr:10.0.0.1']);
  });

  it('lets `limit` attempts through a window, then refuses with the whole seconds to wait', async () => {
    const { throttle } = setup(3);
    for (let i = 0; i < 3; i++) await throttle.reserve('10.0.0.1', at(i));
    const error = await refusal(throttle.reserve('10.0.0.1', at(100.2)));
    expect(error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(error.message).toBe('Too many failed attempts. Try again later.');
    // The window began at 0 and lasts 600 s: 499.8 s left, rounded up.
    expect(error.retryAfterS).toBe(500);
    // Another address has a budget of its own.
    await expect(throttle.reserve('10.0.0.2', at(100))).resolves.toEqual({ key: 'sso-addr:10.0.0.2' });
  });

  it('never tells less than one second to wait', async () => {
    const { throttle } = setup(1);
    await throttle.reserve('10.0.0.1', at(0));
    expect((await refusal(throttle.reserve('10.0.0.1', at(599.9)))).retryAfterS).toBe(1);
  });

  it('gives the place back on success, so successes never spend the budget', async () => {
    const { throttle, store } = setup(2);
    for (let i = 0; i < 5; i++) await throttle.succeeded(await throttle.reserve('10.0.0.1', at(i)));
    expect(store.rows.get('sso-addr:10.0.0.1')?.used).toBe(0);
  });

  it("keeps a budget per scope (an SSO login's provider): one scope's failures never spend another's", async () => {
    const { throttle, store } = setup(2);
    for (let i = 0; i < 2; i++) await throttle.reserve('10.0.0.1', at(i), 'acme');
    expect((await refusal(throttle.reserve('10.0.0.1', at(3), 'acme'))).code).toBe('TOO_MANY_ATTEMPTS');
    await expect(throttle.reserve('10.0.0.1', at(3), 'globex')).resolves.toEqual({
      key: 'sso-addr:globex:10.0.0.1',
    });
    expect([...store.rows.keys()]).toEqual(['sso-addr:acme:10.0.0.1', 'sso-addr:globex:10.0.0.1']);
  });

  it('tells each refused attempt, and only those', async () => {
    const store = new MemoryThrottleStore();
    let refused = 0;
    const throttle = new AddressThrottle(store, 'backchannel', { limit: 1, windowS: 600 }, () => {
      refused += 1;
    });
    await throttle.reserve('10.0.0.1', at(0));
    await refusal(throttle.reserve('10.0.0.1', at(1)));
    await refusal(throttle.reserve('10.0.0.1', at(2)));
    expect(refused).toBe(2);
  });
});
