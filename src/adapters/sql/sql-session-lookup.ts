import type { SessionWithUser } from '../../domain/session/session.js';
import type { SessionLookup } from '../../domain/session/session-lookup.port.js';
import { LookupBatcher } from './lookup-batcher.js';
import type { SqlExecutor } from './sql-client.js';
import { SESSION_COLUMNS, type SessionRow, sessionFromRow } from './sql-session-store.js';
import { USER_COLUMNS, type UserRow, userFromRow } from './user-row.js';

/** The timestamp columns of the hot-path row, which JSON carries as ISO 8601 strings. */
const SESSION_USER_DATES = [
  's_created_at',
  'last_seen_at',
  'expires_at',
  'auth_time',
  'password_changed_at',
  'credentials_expire_at',
  'first_login_at',
  'created_at',
] as const;

type DateColumn = (typeof SESSION_USER_DATES)[number];
type JsonSessionUserRow = Omit<SessionRow & UserRow, DateColumn> & Record<DateColumn, string | null>;

/** Turns the JSON row's timestamps back into Dates, in place (the object is the driver's fresh parse). */
function fromJsonRow(json: JsonSessionUserRow): SessionRow & UserRow {
  const row = json as unknown as Record<DateColumn, string | Date | null>;
  for (const column of SESSION_USER_DATES) {
    const value = row[column];
    if (typeof value === 'string') row[column] = new Date(value);
  }
  return json as unknown as SessionRow & UserRow;
}

/**
 * Session lookups per query (64 rows of about 1 kB stay one small answer), and queries out at once:
 * two keep the database busy while the next batch gathers (measured against one and unlimited in
 * docs/performance.md).
 */
const LOOKUP_LIMITS = { maxBatch: 64, maxInFlight: 2 };

/**
 * The hot path on the SQL store, where sessions and users share a database: one primary-key
 * lookup joined with the user and backend, a prepared statement. The row comes back as one JSON
 * value (`row_to_json`): decoding one column instead of 41 nearly halves the driver's work per
 * request (docs/performance.md); only the timestamps need converting. The lookups of one
 * event-loop turn share one query (LookupBatcher), unless `batchLookups` is off.
 */
export class SqlSessionLookup implements SessionLookup {
  private readonly batcher: LookupBatcher<string, SessionWithUser> | null;

  constructor(
    private readonly sql: SqlExecutor,
    options: { batchLookups?: boolean } = {},
  ) {
    this.batcher =
      options.batchLookups === false
        ? null
        : new LookupBatcher((hashes) => this.findManyByTokenHash(hashes), LOOKUP_LIMITS);
  }

  async findSessionWithUser(tokenHash: string): Promise<SessionWithUser | null> {
    if (this.batcher) return this.batcher.load(tokenHash);
    return (await this.findManyByTokenHash([tokenHash])).get(tokenHash) ?? null;
  }

  private async findManyByTokenHash(tokenHashes: string[]): Promise<Map<string, SessionWithUser>> {
    const { rows } = await this.sql.query<{ r: JsonSessionUserRow | string }>(
      `SELECT row_to_json(x) AS r FROM (
         SELECT ${SESSION_COLUMNS}, ${USER_COLUMNS}
           FROM sessions s JOIN users u ON u.user_id = s.user_id LEFT JOIN backends b ON b.name = u.backend_name
          WHERE s.token_hash = ANY($1::text[])) x`,
      [tokenHashes],
      'session_by_token_hash',
    );
    const found = new Map<string, SessionWithUser>();
    for (const { r } of rows) {
      const row = fromJsonRow(typeof r === 'string' ? (JSON.parse(r) as JsonSessionUserRow) : r);
      found.set(row.token_hash, { session: sessionFromRow(row), user: userFromRow(row) });
    }
    return found;
  }
}
