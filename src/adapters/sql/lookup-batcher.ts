/**
 * Coalesces the key lookups asked for in one turn of the event loop into one query.
 *
 * The session check is the hot path: under load, dozens of requests are parsed in the same turn,
 * and each would otherwise pay its own round trip to the database (the driver's encoding and
 * parsing, two socket writes, a PostgreSQL backend's executor start-up). Batched, they share one
 * `= ANY($1)` lookup. Nothing is cached: every lookup is sent after the request asked for it, so a
 * revocation committed before a request arrived is seen by that request, on every instance.
 *
 * The batch is sent from `setImmediate`, i.e. after the poll phase has handed every readable
 * socket to its handler; an idle service adds no more than that one turn to a lookup.
 */
export class LookupBatcher<Key, Value> {
  private pending = new Map<
    Key,
    { resolve: (value: Value | null) => void; reject: (error: unknown) => void }[]
  >();
  private scheduled = false;

  constructor(
    /** Loads every key given; a key missing from the map is answered `null`. */
    private readonly loadMany: (keys: Key[]) => Promise<Map<Key, Value>>,
    /** Keys per query; a larger turn is split into several queries. */
    private readonly maxBatch: number,
  ) {}

  load(key: Key): Promise<Value | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    const keys = [...batch.keys()];
    for (let start = 0; start < keys.length; start += this.maxBatch) {
      void this.send(keys.slice(start, start + this.maxBatch), batch);
    }
  }

  private async send(keys: Key[], batch: typeof this.pending): Promise<void> {
    let found: Map<Key, Value>;
    try {
      found = await this.loadMany(keys);
    } catch (error) {
      for (const key of keys) for (const waiter of batch.get(key) ?? []) waiter.reject(error);
      return;
    }
    for (const key of keys) {
      const value = found.get(key) ?? null;
      for (const waiter of batch.get(key) ?? []) waiter.resolve(value);
    }
  }
}
