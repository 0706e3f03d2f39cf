import type { AuditRecord } from '../../domain/audit/audit-event.js';
import type { Store } from '../../domain/store.port.js';
import type { User } from '../../domain/user/user.js';
import { notFound } from './directory-writes.js';

/** The audit trail as an administrator reads it (`gatehouse audit`). */
export class AdminAudit {
  constructor(private readonly store: Pick<Store, 'audit' | 'users'>) {}

  /** Every subject's events since a moment: users, registered providers, unmatched failures. */
  listSince(since: Date, limit: number): Promise<AuditRecord[]> {
    return this.store.audit.listSince(since, limit);
  }

  /** One user's events, found by username; NOT_FOUND when there is no such user. */
  async listForUser(
    username: string,
    options: { since?: Date; limit: number },
  ): Promise<{ user: User; records: AuditRecord[] }> {
    const user = await this.store.users.findByUsername(username);
    if (!user) throw notFound(`no user ${JSON.stringify(username)}`);
    return { user, records: await this.store.audit.listForUser(user.userId, options) };
  }
}
