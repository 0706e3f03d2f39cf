import type { LoginMethod, SessionRecord, SsoOrigin, StoredSession } from '../../domain/session/session.js';
import type { SessionAuth, SessionStage } from '../../domain/session/session-auth.js';
import type { SessionLookup } from '../../domain/session/session-lookup.port.js';
import type {
  EndAllSessions,
  SessionPage,
  SessionPaging,
  SessionPurge,
  SessionReplace,
  SessionStore,
  SessionStoreCapabilities,
} from '../../domain/session/session-store.port.js';
import { ENVIRONMENT_PROVIDER_ID } from '../../domain/sso/provider-registration.js';
import type { SqlExecutor } from './sql-client.js';

export const SESSION_COLUMNS = `
  s.token_hash, s.handle, s.user_id AS s_user_id, s.method, s.created_at AS s_created_at, s.last_seen_at,
  s.expires_at, s.client_address, s.user_agent, s.sso_provider, s.sso_issuer, s.sso_subject, s.sso_sid,
  s.auth_stage, s.auth_methods, s.auth_time`;

/** The provider tokens: read only when a session ends (they can be kilobytes each). */
const PROVIDER_TOKEN_COLUMNS = 's.sso_id_token, s.sso_access_token, s.sso_refresh_token';

export interface SessionRow {
  token_hash: string;
  handle: string;
  s_user_id: string;
  method: LoginMethod;
  s_created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  client_address: string | null;
  user_agent: string | null;
  sso_provider: string | null;
  sso_issuer: string | null;
  sso_subject: string | null;
  sso_sid: string | null;
  /** The three `auth` columns (migration 0013): all null on a row written before them. */
  auth_stage: SessionStage | null;
  auth_methods: string[] | null;
  auth_time: Date | null;
}

interface StoredSessionRow extends SessionRow {
  sso_id_token: string | null;
  sso_access_token: string | null;
  sso_refresh_token: string | null;
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return {
    tokenHash: row.token_hash,
    handle: row.handle,
    userId: row.s_user_id,
    method: row.method,
    createdAt: row.s_created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    clientAddress: row.client_address,
    userAgent: row.user_agent,
    sso:
      row.sso_issuer && row.sso_subject
        ? {
            // Sessions from before providers were registered came through the environment's.
            provider: row.sso_provider ?? ENVIRONMENT_PROVIDER_ID,
            issuer: row.sso_issuer,
            subject: row.sso_subject,
            sid: row.sso_sid,
          }
        : null,
    ...authFromRow(row),
  };
}

/**
 * The session's `auth`, or nothing: a row from before migration 0013 has none (the table's check
 * keeps the three columns together), and the record then has no `auth` key at all, as it was made.
 */
function authFromRow(row: SessionRow): { auth?: SessionAuth } {
  if (row.auth_stage === null || row.auth_methods === null || row.auth_time === null) return {};
  return { auth: { stage: row.auth_stage, amr: row.auth_methods, authTime: row.auth_time } };
}

function storedSessionFromRow(row: StoredSessionRow): StoredSession {
  const session = sessionFromRow(row);
  return {
    ...session,
    sso: session.sso
      ? {
          ...session.sso,
          idToken: row.sso_id_token,
          accessTokenSealed: row.sso_access_token,
          refreshTokenSealed: row.sso_refresh_token,
        }
      : null,
  };
}

const INSERTED_COLUMNS = `token_hash, handle, user_id, method, created_at, last_seen_at, expires_at,
  client_address, user_agent, sso_issuer, sso_subject, sso_sid, sso_id_token, sso_access_token,
  sso_refresh_token, sso_provider, auth_stage, auth_methods, auth_time`;
const INSERTED_PLACES = Array.from({ length: 19 }, (_, index) => `$${index + 1}`).join(',');

/** A session's values in the order of `INSERTED_COLUMNS`. */
function insertedValues(session: StoredSession): unknown[] {
  return [
    session.tokenHash,
    session.handle,
    session.userId,
    session.method,
    session.createdAt,
    session.lastSeenAt,
    session.expiresAt,
    session.clientAddress,
    session.userAgent,
    session.sso?.issuer ?? null,
    session.sso?.subject ?? null,
    session.sso?.sid ?? null,
    session.sso?.idToken ?? null,
    session.sso?.accessTokenSealed ?? null,
    session.sso?.refreshTokenSealed ?? null,
    session.sso?.provider ?? null,
    session.auth?.stage ?? null,
    session.auth ? [...session.auth.amr] : null,
    session.auth?.authTime ?? null,
  ];
}

/**
 * Sessions in the `sessions` table. A table keeps rows until they are deleted, so this store
 * declares the purge (and ignores `keepUntil`); it declares keyset paging and "end all" too, which
 * SQL does in one statement each, and, when given the join, the lookup with the user.
 */
export class SqlSessionStore
  implements SessionStore, SessionPurge, SessionPaging, EndAllSessions, SessionReplace
{
  readonly capabilities: SessionStoreCapabilities;

  constructor(
    private readonly sql: SqlExecutor,
    /** The hot-path join (`SqlSessionLookup`), outside transactions. */
    lookupWithUser?: SessionLookup,
  ) {
    this.capabilities = {
      purge: this,
      paging: this,
      endAll: this,
      replace: this,
      ...(lookupWithUser ? { lookupWithUser } : {}),
    };
  }

  /** The row stays until deleted (the purge reclaims timed-out ones): `keepUntil` is not needed. */
  async create(session: StoredSession, _keepUntil?: Date): Promise<void> {
    await this.sql.send(
      `INSERT INTO sessions (${INSERTED_COLUMNS}) VALUES (${INSERTED_PLACES})`,
      insertedValues(session),
      'session_create',
    );
  }

  /**
   * One statement: the DELETE's row feeds the INSERT, so the new row is written only when the old
   * one was there and the user's; both happen or neither, and the user's count stays as it was.
   */
  async replaceSession(
    oldTokenHash: string,
    next: StoredSession,
    _keepUntil?: Date,
  ): Promise<StoredSession | null> {
    const { rows } = await this.sql.query<StoredSessionRow>(
      `WITH gone AS (
         DELETE FROM sessions s WHERE s.token_hash = $20 AND s.user_id = $3
         RETURNING ${SESSION_COLUMNS}, ${PROVIDER_TOKEN_COLUMNS}),
       made AS (INSERT INTO sessions (${INSERTED_COLUMNS}) SELECT ${INSERTED_PLACES} FROM gone)
       SELECT * FROM gone`,
      [...insertedValues(next), oldTokenHash],
      'session_replace',
    );
    return rows[0] ? storedSessionFromRow(rows[0]) : null;
  }

  async findByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.token_hash = $1`,
      [tokenHash],
      'session_find',
    );
    return rows[0] ? sessionFromRow(rows[0]) : null;
  }

  async touch(tokenHash: string, now: Date, _keepUntil?: Date): Promise<void> {
    await this.sql.query(
      'UPDATE sessions SET last_seen_at = $2 WHERE token_hash = $1 AND last_seen_at < $2',
      [tokenHash, now],
      'session_touch',
    );
  }

  async deleteByTokenHash(tokenHash: string): Promise<StoredSession | null> {
    const { rows } = await this.sql.query<StoredSessionRow>(
      `DELETE FROM sessions s WHERE s.token_hash = $1 RETURNING ${SESSION_COLUMNS}, ${PROVIDER_TOKEN_COLUMNS}`,
      [tokenHash],
      'session_delete',
    );
    return rows[0] ? storedSessionFromRow(rows[0]) : null;
  }

  async deleteAllForUser(userId: string, exceptTokenHash?: string): Promise<number> {
    const { rowCount } = await this.sql.query(
      'DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2',
      [userId, exceptTokenHash ?? ''],
    );
    return rowCount;
  }

  async deleteAll(): Promise<number> {
    const { rowCount } = await this.sql.query('DELETE FROM sessions');
    return rowCount;
  }

  async deleteBySso(origin: SsoOrigin, by: { sid?: string; subject?: string }): Promise<SessionRecord[]> {
    if (!by.sid && !by.subject) return [];
    const { rows } = await this.sql.query<SessionRow>(
      `DELETE FROM sessions s
        WHERE s.sso_provider = $4 AND s.sso_issuer = $1
          AND ($2::text IS NULL OR s.sso_sid = $2)
          AND ($3::text IS NULL OR s.sso_subject = $3)
       RETURNING ${SESSION_COLUMNS}`,
      [origin.issuer, by.sid ?? null, by.subject ?? null, origin.provider],
    );
    return rows.map(sessionFromRow);
  }

  async listForUser(userId: string): Promise<SessionRecord[]> {
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.user_id = $1`,
      [userId],
      'sessions_of_user',
    );
    return rows.map(sessionFromRow);
  }

  async listPage(userId: string, page: SessionPage): Promise<SessionRecord[]> {
    const { alive, after } = page;
    const idleCutoff = alive ? new Date(alive.at.getTime() - alive.idleTimeoutS * 1000) : null;
    const { rows } = await this.sql.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions s
        WHERE s.user_id = $1
          AND ($2::timestamptz IS NULL OR (s.expires_at > $2 AND s.last_seen_at > $3::timestamptz))
          AND ($4::timestamptz IS NULL OR (s.created_at, s.handle) < ($4::timestamptz, $5::text))
        ORDER BY s.created_at DESC, s.handle DESC LIMIT $6`,
      [userId, alive?.at ?? null, idleCutoff, after?.createdAt ?? null, after?.handle ?? null, page.limit],
      'sessions_page',
    );
    return rows.map(sessionFromRow);
  }

  async evictBeyond(userId: string, keep: number): Promise<SessionRecord[]> {
    // The user's row lock serialises logins of one user until commit, so the count is exact.
    await this.sql.send('SELECT 1 FROM users WHERE user_id = $1 FOR NO KEY UPDATE', [userId], 'user_lock');
    const { rows } = await this.sql.query<SessionRow>(
      `DELETE FROM sessions s WHERE s.token_hash IN (
         SELECT token_hash FROM sessions WHERE user_id = $1
          ORDER BY last_seen_at DESC, created_at DESC OFFSET $2)
       RETURNING ${SESSION_COLUMNS}`,
      [userId, keep],
      'sessions_evict',
    );
    return rows.map(sessionFromRow);
  }

  async deleteByHandle(userId: string, handle: string): Promise<boolean> {
    const { rowCount } = await this.sql.query('DELETE FROM sessions WHERE user_id = $1 AND handle = $2', [
      userId,
      handle,
    ]);
    return rowCount === 1;
  }

  async purgeExpired(now: Date, idleTimeoutS: number, limit: number): Promise<number> {
    const idleCutoff = new Date(now.getTime() - idleTimeoutS * 1000);
    const { rowCount } = await this.sql.query(
      `DELETE FROM sessions WHERE token_hash IN (
         SELECT token_hash FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2 LIMIT $3)`,
      [now, idleCutoff, limit],
    );
    return rowCount;
  }
}
