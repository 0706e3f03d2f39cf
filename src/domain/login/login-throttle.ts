import { DomainError } from '../shared/domain-error.js';
import type { ThrottleStore } from './throttle-store.port.js';

export interface ThrottleSettings {
  /** Failures per username in the window before delays start (LOGIN_MAX_FAILURES). */
  maxFailures: number;
  windowS: number;
}

/** What `assertAllowed` learnt about an attempt that may go on. */
export interface ThrottleStanding {
  accountHasFailures: boolean;
}

/** A client address may fail this many times more than one account before it is slowed down. */
export const ADDRESS_FAILURE_FACTOR = 10;

/**
 * Anti-automation that cannot become a lockout (ASVS 6.1.1, 6.3.1): failures are counted per
 * account and, more loosely, per client address, in the shared store. Past the limit each
 * further failure doubles the delay, capped at the window, so no account is ever locked for good.
 */
export class LoginThrottle {
  constructor(
    private readonly store: ThrottleStore,
    private readonly settings: ThrottleSettings,
  ) {}

  static keys(username: string, clientAddress: string | null): { user: string; address: string | null } {
    return {
      user: `user:${username.toLowerCase()}`,
      address: clientAddress ? `addr:${clientAddress}` : null,
    };
  }

  /** Throws TOO_MANY_ATTEMPTS with the seconds to wait while any key is blocked. */
  async assertAllowed(keys: { user: string; address: string | null }, now: Date): Promise<ThrottleStanding> {
    const list = keys.address ? [keys.user, keys.address] : [keys.user];
    const { blockedUntil: until, keysWithFailures } = await this.store.check(list, now);
    if (until) {
      const retryAfterS = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
      throw new DomainError('TOO_MANY_ATTEMPTS', 'Too many failed attempts. Try again later.', {
        retryAfterS,
      });
    }
    return { accountHasFailures: keysWithFailures.includes(keys.user) };
  }

  delayFor(failures: number, limit: number): number {
    if (failures < limit) return 0;
    const exponent = Math.min(failures - limit, 30);
    return Math.min(this.settings.windowS, 2 ** (exponent + 1));
  }

  /** `store`: the throttle store of a transaction, so the count commits with what goes with it (the audit). */
  async recordFailure(
    keys: { user: string; address: string | null },
    now: Date,
    store: ThrottleStore = this.store,
  ): Promise<{ blocked: boolean }> {
    let blocked = false;
    const entries: Array<[string, number]> = [[keys.user, this.settings.maxFailures]];
    if (keys.address) entries.push([keys.address, this.settings.maxFailures * ADDRESS_FAILURE_FACTOR]);
    for (const [key, limit] of entries) {
      const failures = await store.recordFailure(key, now, this.settings.windowS);
      const delayS = this.delayFor(failures, limit);
      if (delayS > 0) {
        blocked = true;
        await store.block(key, new Date(now.getTime() + delayS * 1000));
      }
    }
    return { blocked };
  }

  /**
   * Forgets the account's failures. `standing` (from `assertAllowed`) saves the write when the
   * check found none: most logins succeed at the first try. A failure recorded since that check
   * then stays counted, which is what it would be had it come just after the success.
   */
  async recordSuccess(
    keys: { user: string },
    store: ThrottleStore = this.store,
    standing?: ThrottleStanding,
  ): Promise<void> {
    if (standing && !standing.accountHasFailures) return;
    await store.reset(keys.user);
  }
}
