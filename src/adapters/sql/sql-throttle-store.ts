import type { ThrottleCheck, ThrottleStore } from '../../domain/login/throttle-store.port.js';
import type { SqlExecutor } from './sql-client.js';

export class SqlThrottleStore implements ThrottleStore {
  constructor(private readonly sql: SqlExecutor) {}

  async check(keys: string[], now: Date): Promise<ThrottleCheck> {
    const { rows } = await this.sql.query<{ until: Date | null; keys: string[] | null }>(
      `SELECT max(blocked_until) FILTER (WHERE blocked_until > $2) AS until, array_agg(key) AS keys
         FROM login_throttle WHERE key = ANY($1::text[])`,
      [keys, now],
      'throttle_check',
    );
    return { blockedUntil: rows[0]?.until ?? null, keysWithFailures: rows[0]?.keys ?? [] };
  }

  /** One atomic upsert: concurrent failures each count once (row lock on conflict). */
  async recordFailure(key: string, now: Date, windowS: number): Promise<number> {
    const windowStartCutoff = new Date(now.getTime() - windowS * 1000);
    const { rows } = await this.sql.query<{ failures: number }>(
      `INSERT INTO login_throttle AS t (key, failures, window_start, updated_at) VALUES ($1, 1, $2, $2)
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN t.window_start <= $3 THEN 1 ELSE t.failures + 1 END,
         window_start = CASE WHEN t.window_start <= $3 THEN $2 ELSE t.window_start END,
         updated_at = $2
       RETURNING failures`,
      [key, now, windowStartCutoff],
      'throttle_record_failure',
    );
    return rows[0]?.failures ?? 1;
  }

  async block(key: string, until: Date): Promise<void> {
    await this.sql.query(
      `UPDATE login_throttle SET blocked_until = GREATEST(COALESCE(blocked_until, $2), $2) WHERE key = $1`,
      [key, until],
      'throttle_block',
    );
  }

  async reset(key: string): Promise<void> {
    await this.sql.query('DELETE FROM login_throttle WHERE key = $1', [key], 'throttle_reset');
  }

  async purgeOlderThan(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.sql.query(
      `DELETE FROM login_throttle WHERE key IN (
         SELECT key FROM login_throttle WHERE updated_at < $1 AND (blocked_until IS NULL OR blocked_until < $1) LIMIT $2)`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
