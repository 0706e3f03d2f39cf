/**
 * Coalesces concurrent key lookups into few queries.
 *
 * The session check is the hot path: under load, dozens of requests are parsed in the same turn of
 * the event loop, and each would otherwise pay its own round trip to the database (the driver's
 * encoding and parsing, a socket write that wakes a PostgreSQL backend, its executor start-up).
 * Batched, they share one `= ANY($1)` lookup. Nothing is cached: every lookup is sent after the
 * request asked for it, so a revocation committed before a request arrived is seen by that
 * request, on every instance.
 *
 * A batch is sent from `setImmediate`, i.e. after the poll phase has handed every readable socket
 * to its handler, so an idle service adds one turn to a lookup. While `maxInFlight` batches are
 * out, no new one starts: lookups asked for meanwhile wait for one to come back and then go
 * together, split into queries of at most `maxBatch` keys (all of which are sent at once, so a
 * turn larger than `maxBatch` may briefly exceed `maxInFlight`; the pool bounds them). Fewer,
 * larger queries cost the database and the driver less per lookup (docs/performance.md).
 */
export class LookupBatcher<Key, Value> {
  private pending = new Map<Key, Waiter<Value>[]>();
  private scheduled = false;
  private inFlight = 0;

  constructor(
    /** Loads every key given; a key missing from the map is answered `null`. */
    private readonly loadMany: (keys: Key[]) => Promise<Map<Key, Value>>,
    private readonly limits: { maxBatch: number; maxInFlight: number },
  ) {}

  load(key: Key): Promise<Value | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.pending.size === 0 || this.inFlight >= this.limits.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    const keys = [...batch.keys()];
    for (let start = 0; start < keys.length; start += this.limits.maxBatch) {
      void this.send(keys.slice(start, start + this.limits.maxBatch), batch);
    }
  }

  private async send(keys: Key[], batch: Map<Key, Waiter<Value>[]>): Promise<void> {
    this.inFlight += 1;
    let found: Map<Key, Value>;
    try {
      found = await this.loadMany(keys);
    } catch (error) {
      for (const key of keys) for (const waiter of batch.get(key) ?? []) waiter.reject(error);
      return;
    } finally {
      this.inFlight -= 1;
      this.schedule();
    }
    for (const key of keys) {
      const value = found.get(key) ?? null;
      for (const waiter of batch.get(key) ?? []) waiter.resolve(value);
    }
  }
}

interface Waiter<Value> {
  resolve: (value: Value | null) => void;
  reject: (error: unknown) => void;
}
