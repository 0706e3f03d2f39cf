import {
  DomainError,
  type ThrottleReservation,
  type ThrottleStore,
  type ThrottleStoreCapabilities,
} from '../../src/testing/store-runtime.js';
import type { KeyValue } from './key-value-session-store.js';

/** One key's budget: the attempts taken in the window of `windowMs` that began at `windowStart`. */
interface Budget {
  used: number;
  windowStart: number;
  windowMs: number;
}

/**
 * Login attempt budgets over the same key/value database, each forgotten when its window ends
 * (no purge to declare). One key's changes are serialised in this process: exact for one
 * instance; several instances need the database's conditional write, as for the session index.
 */
export class KeyValueThrottleStore implements ThrottleStore {
  readonly capabilities: ThrottleStoreCapabilities = {};
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly kv: KeyValue) {}

  reserve(key: string, limit: number, now: Date, windowS: number): Promise<ThrottleReservation> {
    return this.serially(key, async () => {
      const budget = await this.budget(key);
      const windowMs = windowS * 1000;
      if (!budget || budget.windowStart <= now.getTime() - windowMs) {
        await this.save(key, { used: 1, windowStart: now.getTime(), windowMs });
        return { granted: true, used: 1 };
      }
      if (budget.used >= limit) return { granted: false, retryAt: new Date(budget.windowStart + windowMs) };
      const used = budget.used + 1;
      await this.save(key, { ...budget, used, windowMs });
      return { granted: true, used };
    });
  }

  release(key: string): Promise<void> {
    return this.serially(key, async () => {
      const budget = await this.budget(key);
      if (budget && budget.used > 0) await this.save(key, { ...budget, used: budget.used - 1 });
    });
  }

  reset(key: string): Promise<void> {
    return this.serially(key, async () => {
      await this.call(() => this.kv.delete(`t:${key}`));
    });
  }

  private async budget(key: string): Promise<Budget | null> {
    const raw = await this.call(() => this.kv.get(`t:${key}`));
    return raw ? (JSON.parse(raw) as Budget) : null;
  }

  /** Kept until its window ends: then it is worthless, and the database forgets it. */
  private async save(key: string, budget: Budget): Promise<void> {
    const until = new Date(budget.windowStart + budget.windowMs);
    await this.call(() => this.kv.set(`t:${key}`, JSON.stringify(budget), until));
  }

  private serially<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(key) ?? Promise.resolve()).then(work, work);
    this.queues.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  /** A database that cannot answer is SERVICE_UNAVAILABLE: 503 and Retry-After, never a 500. */
  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (cause) {
      throw new DomainError('SERVICE_UNAVAILABLE', 'The throttle store is unavailable.', {
        cause,
        retryAfterS: 5,
      });
    }
  }
}
