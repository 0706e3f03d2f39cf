import type {
  ThrottlePurge,
  ThrottleReservation,
  ThrottleStore,
  ThrottleStoreCapabilities,
} from '../../domain/login/throttle-store.port.js';

/**
 * Attempt budgets in this process's memory (SESSION_STORE=memory, beside the memory session
 * store): exact, since one thread runs every reservation; per process, so instances behind a load
 * balancer would each count their own. The purge it declares forgets windows that are over.
 */
export class MemoryThrottleStore implements ThrottleStore, ThrottlePurge {
  readonly capabilities: ThrottleStoreCapabilities = { purge: this };
  /** Each key's budget: the attempts taken in the window that began at `windowStart` (ms). */
  readonly budgets = new Map<string, { used: number; windowStart: number }>();

  async reserve(key: string, limit: number, now: Date, windowS: number): Promise<ThrottleReservation> {
    const budget = this.budgets.get(key);
    if (!budget || budget.windowStart <= now.getTime() - windowS * 1000) {
      this.budgets.set(key, { used: 1, windowStart: now.getTime() });
      return { granted: true, used: 1 };
    }
    if (budget.used >= limit) {
      return { granted: false, retryAt: new Date(budget.windowStart + windowS * 1000) };
    }
    budget.used += 1;
    return { granted: true, used: budget.used };
  }

  async release(key: string): Promise<void> {
    const budget = this.budgets.get(key);
    if (budget) budget.used = Math.max(0, budget.used - 1);
  }

  async reset(key: string): Promise<void> {
    this.budgets.delete(key);
  }

  async purgeOlderThan(cutoff: Date, limit: number): Promise<number> {
    let purged = 0;
    for (const [key, budget] of this.budgets) {
      if (purged >= limit) break;
      if (budget.windowStart < cutoff.getTime()) {
        this.budgets.delete(key);
        purged += 1;
      }
    }
    return purged;
  }
}
