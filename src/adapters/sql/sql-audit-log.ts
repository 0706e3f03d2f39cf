import type { AuditEvent, AuditRecord } from '../../domain/audit/audit-event.js';
import type { AuditLog } from '../../domain/audit/audit-log.port.js';
import type { LoginMethod } from '../../domain/session/session.js';
import type { SqlExecutor } from './sql-client.js';

interface AuditRow {
  id: string;
  occurred_at: Date;
  event: AuditEvent['event'];
  outcome: AuditEvent['outcome'];
  reason: string | null;
  user_id: string | null;
  username: string | null;
  actor: AuditEvent['actor'];
  session_handle: string | null;
  session_count: number | null;
  client_address: string | null;
  method: LoginMethod | null;
  provider_id: string | null;
}

const COLUMNS = `id::text AS id, occurred_at, event, outcome, reason, user_id, username, actor, session_handle,
  session_count, client_address, method, provider_id`;

function recordFromRow(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    event: row.event,
    outcome: row.outcome,
    reason: row.reason,
    userId: row.user_id,
    username: row.username,
    actor: row.actor,
    sessionHandle: row.session_handle,
    sessionCount: row.session_count,
    clientAddress: row.client_address,
    method: row.method,
    providerId: row.provider_id,
  };
}

export class SqlAuditLog implements AuditLog {
  constructor(private readonly sql: SqlExecutor) {}

  async record(event: AuditEvent): Promise<void> {
    await this.sql.send(
      `INSERT INTO audit_events (occurred_at, event, outcome, reason, user_id, username, actor, session_handle,
         session_count, client_address, method, provider_id)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`,
      [
        event.occurredAt,
        event.event,
        event.outcome,
        event.reason,
        event.userId,
        event.username,
        event.actor,
        event.sessionHandle,
        event.sessionCount,
        event.clientAddress,
        event.method,
        event.providerId,
      ],
      'audit_record',
    );
  }

  async listForUser(userId: string, options: { since?: Date; limit: number }): Promise<AuditRecord[]> {
    const { rows } = await this.sql.query<AuditRow>(
      `SELECT * FROM (
         SELECT ${COLUMNS} FROM audit_events
          WHERE user_id = $1 AND ($2::timestamptz IS NULL OR occurred_at >= $2)
          ORDER BY occurred_at DESC, audit_events.id DESC LIMIT $3) latest
       ORDER BY occurred_at, id::bigint`,
      [userId, options.since ?? null, options.limit],
    );
    return rows.map(recordFromRow);
  }

  async listSince(since: Date, limit: number): Promise<AuditRecord[]> {
    const { rows } = await this.sql.query<AuditRow>(
      `SELECT * FROM (
         SELECT ${COLUMNS} FROM audit_events WHERE occurred_at >= $1
          ORDER BY occurred_at DESC, audit_events.id DESC LIMIT $2) latest
       ORDER BY occurred_at, id::bigint`,
      [since, limit],
    );
    return rows.map(recordFromRow);
  }

  async purgeOlderThan(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.sql.query(
      `DELETE FROM audit_events WHERE id IN (
         SELECT id FROM audit_events WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2)`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
