import { parseArgs } from 'node:util';
import type { AdminAudit } from '../application/admin/admin-audit.js';
import type { AuditRecord } from '../domain/audit/audit-event.js';
import { escapeForDisplay } from '../domain/user/username.js';
import { UsageError } from './usage.js';

/** Events printed when --limit is not given: the latest ones. */
export const DEFAULT_AUDIT_LIMIT = 1000;
const MAX_AUDIT_LIMIT = 100_000;

const RELATIVE_SINCE = /^(\d{1,6})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** What the audit command needs of the CLI's context (a subset of cli.ts's). */
export interface AuditCommandContext {
  audit: AdminAudit;
  out(line: string): void;
}

/**
 * Control, format and invisible characters never reach the terminal as such (a client address
 * is client-supplied data; a username may be an old oddity): they are shown escaped.
 */
const clean = escapeForDisplay;

/** `--since`: an ISO 8601 date or date-time, or an age such as 30m, 24h, 7d. */
export function parseSince(value: string, now: Date): Date {
  const relative = RELATIVE_SINCE.exec(value);
  if (relative) {
    const unit = relative[2] as keyof typeof UNIT_MS;
    return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[unit]);
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const parsed = new Date(value);
    if (!Number.isNaN(parsed.getTime())) return parsed;
  }
  throw new UsageError(`--since must be an ISO 8601 date or date-time, or an age such as 24h or 7d`);
}

/** One line per event: time, event, outcome, then the columns that are set. */
export function formatAuditRecord(record: AuditRecord, options: { withUser?: boolean } = {}): string {
  const fields: Array<[string, string | number | null]> = [
    ['user', record.username],
    ['provider', record.providerId],
    ['reason', record.reason],
    ['method', record.method],
    ['actor', record.actor],
    ['session', record.sessionHandle],
    ['sessions', record.sessionCount],
    ['from', record.clientAddress],
  ];
  const parts = [record.occurredAt.toISOString(), record.event, record.outcome];
  for (const [name, value] of fields) {
    if (name === 'user' && !options.withUser) continue;
    if (value !== null) parts.push(`${name}=${clean(String(value))}`);
  }
  return parts.join('  ');
}

/**
 * `gatehouse audit [--user USERNAME] [--since TIME] [--limit N]`: audit events, oldest first (the
 * latest N when there are more): the user's with --user, otherwise every subject's (users,
 * registered providers). Failed logins for usernames that match no account are
 * not tied to any user (they are stored without one), so they do not appear here.
 */
export function planAudit(args: readonly string[], now: () => Date = () => new Date()) {
  let values: { user?: string; since?: string; limit?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      options: { user: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (positionals.length > 0)
    throw new UsageError(`expected no argument, got ${positionals.length} argument(s)`);
  const username = values.user;
  if (username === '') throw new UsageError('--user needs a username');
  const since = values.since === undefined ? undefined : parseSince(values.since, now());
  let limit = DEFAULT_AUDIT_LIMIT;
  if (values.limit !== undefined) {
    if (
      !/^\d{1,6}$/.test(values.limit) ||
      Number(values.limit) < 1 ||
      Number(values.limit) > MAX_AUDIT_LIMIT
    ) {
      throw new UsageError(`--limit must be a whole number from 1 to ${MAX_AUDIT_LIMIT}`);
    }
    limit = Number(values.limit);
  }
  return {
    async run(context: AuditCommandContext): Promise<void> {
      if (username === undefined) {
        // Every subject: users, registered providers, and failures that match no account.
        const records = await context.audit.listSince(since ?? new Date(0), limit);
        const plural = records.length === 1 ? '' : 's';
        context.out(`${records.length} audit event${plural}${since ? ` since ${since.toISOString()}` : ''}`);
        for (const record of records) context.out(`  ${formatAuditRecord(record, { withUser: true })}`);
        return;
      }
      const { user, records } = await context.audit.listForUser(username, {
        ...(since ? { since } : {}),
        limit,
      });
      const plural = records.length === 1 ? '' : 's';
      const window = since ? ` since ${since.toISOString()}` : '';
      context.out(`${records.length} audit event${plural} of "${clean(user.username)}"${window}`);
      for (const record of records) context.out(`  ${formatAuditRecord(record)}`);
    },
  };
}
