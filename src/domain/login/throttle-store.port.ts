/** Shared failure counters so every instance throttles alike (contract 3a). */
export interface ThrottleState {
  failures: number;
  blockedUntil: Date | null;
}

export interface ThrottleStore {
  /** The latest `blockedUntil` among the keys that is still in the future, or null. */
  blockedUntil(keys: string[], now: Date): Promise<Date | null>;
  /**
   * Atomically counts one failure for the key (restarting the count when the window has passed)
   * and returns the new count. Exact under concurrency: no lost updates.
   */
  recordFailure(key: string, now: Date, windowS: number): Promise<number>;
  /** Extends the block of the key to `until` (never shortens it). */
  block(key: string, until: Date): Promise<void>;
  reset(key: string): Promise<void>;
  purgeOlderThan(cutoff: Date, limit: number): Promise<number>;
}
