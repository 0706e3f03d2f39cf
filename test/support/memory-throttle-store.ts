import type {
  ThrottleReservation,
  ThrottleStore,
  ThrottleStoreCapabilities,
} from '../../src/domain/login/throttle-store.port.js';

/** The ThrottleStore port in memory, following the port's documented semantics. */
export class MemoryThrottleStore implements ThrottleStore {
  /** Declares nothing optional: the throttle's tests need none. */
  readonly capabilities: ThrottleStoreCapabilities = {};
  readonly rows = new Map<string, { used: number; windowStart: number }>();
  /** The same map under the name the service's in-memory store gives it. */
  get budgets() {
    return this.rows;
  }
  /** Every key given back, in order (a release of a key never reserved is a bug the map hides). */
  readonly released: Array<string | null> = [];

  async reserve(key: string, limit: number, now: Date, windowS: number): Promise<ThrottleReservation> {
    const row = this.rows.get(key);
    if (!row || row.windowStart <= now.getTime() - windowS * 1000) {
      this.rows.set(key, { used: 1, windowStart: now.getTime() });
      return { granted: true, used: 1 };
    }
    if (row.used >= limit) return { granted: false, retryAt: new Date(row.windowStart + windowS * 1000) };
    row.used += 1;
    return { granted: true, used: row.used };
  }

  async release(key: string): Promise<void> {
    this.released.push(key);
    const row = this.rows.get(key);
    if (row) row.used = Math.max(0, row.used - 1);
  }

  async reset(key: string): Promise<void> {
    this.rows.delete(key);
  }

  async purgeOlderThan(): Promise<number> {
    return 0;
  }
}
