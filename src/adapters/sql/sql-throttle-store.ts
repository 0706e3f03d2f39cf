import type {
  ThrottlePurge,
  ThrottleReservation,
  ThrottleReserveEach,
  ThrottleSettle,
  ThrottleStore,
  ThrottleStoreCapabilities,
} from '../../domain/login/throttle-store.port.js';
import type { SqlExecutor } from './sql-client.js';

/**
 * `login_throttle.failures` counts the attempts taken in the window that began at `window_start`
 * (a reservation is counted before the password is checked; a success gives it back).
 * `updated_at` only moves forward: each attempt reads the clock before its statement is sent, so
 * of two racing attempts the one that runs second may carry the earlier time.
 */
export class SqlThrottleStore implements ThrottleStore, ThrottlePurge, ThrottleSettle, ThrottleReserveEach {
  /**
   * Rows stay until deleted: the purge deletes the ones whose window is over. Two keys are two
   * rows of one table, so an attempt's two reservations are one statement, and so are a success's
   * two writes.
   */
  readonly capabilities: ThrottleStoreCapabilities = { purge: this, settle: this, reserveEach: this };

  constructor(private readonly sql: SqlExecutor) {}

  /**
   * One conditional upsert: the row lock taken by ON CONFLICT serialises concurrent attempts on a
   * key, and the WHERE lets the update happen only while the budget has room (or the window is
   * over, which starts a new one). No row back means the budget is spent.
   */
  async reserve(key: string, limit: number, now: Date, windowS: number): Promise<ThrottleReservation> {
    const windowOverBefore = new Date(now.getTime() - windowS * 1000);
    const { rows } = await this.sql.query<{ used: number; window_start: Date; granted: boolean }>(
      `WITH taken AS (
         INSERT INTO login_throttle AS t (key, failures, window_start, updated_at) VALUES ($1, 1, $2, $2)
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN t.window_start <= $3 THEN 1 ELSE t.failures + 1 END,
           window_start = CASE WHEN t.window_start <= $3 THEN $2 ELSE t.window_start END,
           updated_at = GREATEST(t.updated_at, $2)
         WHERE t.window_start <= $3 OR t.failures < $4
         RETURNING failures, window_start)
       SELECT failures AS used, window_start, true AS granted FROM taken
       UNION ALL
       SELECT failures, window_start, false FROM login_throttle
        WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM taken)`,
      [key, now, windowOverBefore, limit],
      'throttle_reserve',
    );
    const row = rows[0];
    if (row?.granted) return { granted: true, used: row.used };
    // Refused. The fallback SELECT reads the statement's snapshot, which misses a row that a
    // concurrent attempt inserted just before: then the window is read again, in a new snapshot.
    const windowStart = row?.window_start ?? (await this.windowStart(key)) ?? now;
    return { granted: false, retryAt: new Date(windowStart.getTime() + windowS * 1000) };
  }

  /**
   * `reserve`'s upsert for every key at once. The rows are taken in key order, as `resetAndRelease`
   * takes them, so that no two statements wait on each other's rows in a cycle. A refused
   * key's window comes from the statement's snapshot, or is read again as `reserve` does.
   */
  async reserveEach(
    budgets: ReadonlyArray<{ key: string; limit: number }>,
    now: Date,
    windowS: number,
  ): Promise<ThrottleReservation[]> {
    const windowOverBefore = new Date(now.getTime() - windowS * 1000);
    const { rows } = await this.sql.query<{ used: number | null; window_start: Date | null }>(
      `WITH wanted AS (
         SELECT * FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS w(key, budget, place)),
       taken AS (
         INSERT INTO login_throttle AS t (key, failures, window_start, updated_at)
         SELECT key, 1, $3, $3 FROM wanted ORDER BY key
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN t.window_start <= $4 THEN 1 ELSE t.failures + 1 END,
           window_start = CASE WHEN t.window_start <= $4 THEN $3 ELSE t.window_start END,
           updated_at = GREATEST(t.updated_at, $3)
         WHERE t.window_start <= $4 OR t.failures < (SELECT w.budget FROM wanted w WHERE w.key = t.key)
         RETURNING key, failures, window_start)
       SELECT taken.failures AS used, COALESCE(taken.window_start, kept.window_start) AS window_start
         FROM wanted w
         LEFT JOIN taken ON taken.key = w.key
         LEFT JOIN login_throttle kept ON kept.key = w.key
        ORDER BY w.place`,
      [budgets.map((budget) => budget.key), budgets.map((budget) => budget.limit), now, windowOverBefore],
      'throttle_reserve_each',
    );
    return Promise.all(
      budgets.map(async ({ key }, index): Promise<ThrottleReservation> => {
        const row = rows[index];
        if (row?.used != null) return { granted: true, used: row.used };
        const windowStart = row?.window_start ?? (await this.windowStart(key)) ?? now;
        return { granted: false, retryAt: new Date(windowStart.getTime() + windowS * 1000) };
      }),
    );
  }

  private async windowStart(key: string): Promise<Date | null> {
    const { rows } = await this.sql.query<{ window_start: Date }>(
      'SELECT window_start FROM login_throttle WHERE key = $1',
      [key],
      'throttle_window',
    );
    return rows[0]?.window_start ?? null;
  }

  async release(key: string): Promise<void> {
    await this.sql.send(
      'UPDATE login_throttle SET failures = GREATEST(failures - 1, 0) WHERE key = $1',
      [key],
      'throttle_release',
    );
  }

  async reset(key: string): Promise<void> {
    await this.sql.send('DELETE FROM login_throttle WHERE key = $1', [key], 'throttle_reset');
  }

  /**
   * The two rows are locked first, in key order, as `reserveEach` takes them: inside a login's
   * transaction, which holds them until it commits, any other order could wait on a reservation
   * that waits on it (a deadlock PostgreSQL breaks by failing one of them).
   */
  async resetAndRelease(forget: string, giveBack: string): Promise<void> {
    await this.sql.send(
      `WITH locked AS (
         SELECT key FROM login_throttle WHERE key IN ($1, $2) ORDER BY key FOR UPDATE),
       forgotten AS (
         DELETE FROM login_throttle t USING locked WHERE t.key = $1 AND locked.key = t.key)
       UPDATE login_throttle t SET failures = GREATEST(t.failures - 1, 0)
         FROM locked WHERE t.key = $2 AND locked.key = t.key`,
      [forget, giveBack],
      'throttle_settle',
    );
  }

  async purgeOlderThan(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.sql.query(
      `DELETE FROM login_throttle WHERE key IN (
         SELECT key FROM login_throttle WHERE window_start < $1 LIMIT $2)`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
