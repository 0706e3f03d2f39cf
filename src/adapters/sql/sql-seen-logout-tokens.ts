import type { SeenLogoutTokens } from '../../domain/sso/seen-logout-tokens.port.js';
import type { SqlExecutor } from './sql-client.js';

/** `seen_logout_tokens`: one row per honoured logout token, until it could no longer be accepted. */
export class SqlSeenLogoutTokens implements SeenLogoutTokens {
  constructor(private readonly sql: SqlExecutor) {}

  /**
   * One upsert: a new (issuer, jti) is inserted; an existing one is taken over only when its record
   * had expired. A row back means this call recorded it first.
   */
  async firstUse(issuer: string, jti: string, until: Date, now: Date): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      `INSERT INTO seen_logout_tokens AS t (issuer, jti, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (issuer, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE t.expires_at <= $4
       RETURNING 1`,
      [issuer, jti, until, now],
      'logout_token_first_use',
    );
    return rowCount === 1;
  }

  async purgeExpired(now: Date, limit: number): Promise<number> {
    const { rowCount } = await this.sql.query(
      `DELETE FROM seen_logout_tokens WHERE (issuer, jti) IN (
         SELECT issuer, jti FROM seen_logout_tokens WHERE expires_at <= $1 LIMIT $2)`,
      [now, limit],
    );
    return rowCount;
  }
}
