/** What the store answers when asked for one attempt from a key's budget. */
export type ThrottleReservation =
  /** The attempt may go on; `used` counts the attempts taken in this window, this one included. */
  | { granted: true; used: number }
  /** The budget of this window is spent until `retryAt` (when the window that began it ends). */
  | { granted: false; retryAt: Date };

/**
 * Shared attempt budgets, so every instance throttles alike (contract 3a). An attempt takes its
 * place in the budget before the password is verified (`reserve`), atomically, so a burst of
 * parallel guesses can never verify more than the budget; a successful attempt gives its place back
 * afterwards (`release` / `reset`). Each operation touches one key, so a store that shards keys (a
 * Redis Cluster) needs no cross-key transaction. docs/stores.md ("The port") says what a store
 * of your own must do; `gatehouse-testing/stores` proves it (`throttleStoreContract`).
 */
export interface ThrottleStore {
  /**
   * Atomically takes one attempt from the key's budget of `limit` per window. The window begins
   * at the key's first attempt and lasts `windowS`; once it has passed, the count starts over.
   * Exact under any concurrency and across instances: never more than `limit` grants a window.
   */
  reserve(key: string, limit: number, now: Date, windowS: number): Promise<ThrottleReservation>;
  /** Gives one attempt back to the key's budget (it succeeded), never below zero. */
  release(key: string): Promise<void>;
  /** Forgets the key's attempts (a successful login forgives the account's failures). */
  reset(key: string): Promise<void>;
  /** What this store can do beyond the required operations. */
  readonly capabilities: ThrottleStoreCapabilities;
}

export interface ThrottleStoreCapabilities {
  /**
   * The store keeps budgets until told to delete them (a table): the periodic purge deletes the
   * ones whose window is over. Without it: the store forgets them itself (Redis: a time to live).
   */
  purge?: ThrottlePurge;
  /**
   * A successful attempt's two writes as one operation. Without it: `reset`, then `release`, one
   * after the other. A store that shards keys (a Redis Cluster) cannot write two keys at once and
   * leaves it out; one that can (a table) saves a round trip on every login.
   */
  settle?: ThrottleSettle;
  /**
   * An attempt's reservations in all its budgets (the account's and the address's) as one
   * operation. Without it: `reserve` on each, one after the other. A store that shards keys leaves
   * it out, as for `settle`; a table saves a round trip on every login and second step.
   */
  reserveEach?: ThrottleReserveEach;
}

export interface ThrottleReserveEach {
  /**
   * What `reserve` answers for each budget, in their order, each exactly as `reserve` alone would:
   * a budget's refusal takes nothing from it and does not stop the others' reservations.
   */
  reserveEach(
    budgets: ReadonlyArray<{ key: string; limit: number }>,
    now: Date,
    windowS: number,
  ): Promise<ThrottleReservation[]>;
}

export interface ThrottleSettle {
  /** `reset(forget)` and `release(giveBack)` together: what a success does to its two budgets. */
  resetAndRelease(forget: string, giveBack: string): Promise<void>;
}

export interface ThrottlePurge {
  /** Deletes up to `limit` keys whose window began before `cutoff` (over, so worthless). */
  purgeOlderThan(cutoff: Date, limit: number): Promise<number>;
}
