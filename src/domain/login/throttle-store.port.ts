/** Shared failure counters so every instance throttles alike (contract 3a). */
export interface ThrottleCheck {
  /** The latest block among the keys that is still in the future, or null. */
  blockedUntil: Date | null;
  /** The keys that have failures on record (so a success knows whether there is anything to forget). */
  keysWithFailures: string[];
}

export interface ThrottleStore {
  /** One read of the keys' records: the block still in force, and which keys have failures. */
  check(keys: string[], now: Date): Promise<ThrottleCheck>;
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
