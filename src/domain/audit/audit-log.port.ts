import type { AuditEvent, AuditRecord } from './audit-event.js';

/**
 * The audit trail. Reached through the Store's repositories, so a use case writes its event in
 * the same transaction as the change it records (`store.transaction(r => ... r.audit.record(...))`).
 */
export interface AuditLog {
  record(event: AuditEvent): Promise<void>;
  /** The user's latest `limit` events from `since` (inclusive) when given, oldest first. */
  listForUser(userId: string, options: { since?: Date; limit: number }): Promise<AuditRecord[]>;
  /** Every event (any user, any provider, none) from `since` (inclusive): the latest `limit`, oldest first. */
  listSince(since: Date, limit: number): Promise<AuditRecord[]>;
  /** Deletes up to `limit` events older than `cutoff`, oldest first; returns how many. */
  purgeOlderThan(cutoff: Date, limit: number): Promise<number>;
}
