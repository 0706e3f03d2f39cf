import { canonicalUsername } from '../../../domain/user/username.js';
import type { SqlExecutor } from '../sql-client.js';

/** Start-up stops here: two existing accounts are one under the canonical form. */
export class UsernameClashError extends Error {
  constructor(readonly clashes: ReadonlyArray<ReadonlyArray<{ userId: string; username: string }>>) {
    const lines = clashes.map(
      (rows) =>
        `  ${rows.map((row) => `${JSON.stringify(row.username)} (user_id ${JSON.stringify(row.userId)})`).join(' and ')}`,
    );
    super(
      `Migration 0003_username_key: ${clashes.length} set(s) of usernames are the same account once ` +
        'case and Unicode compatibility forms are folded:\n' +
        `${lines.join('\n')}\n` +
        'Rename or delete all but one of each set (UPDATE users SET username = ... WHERE user_id = ...), ' +
        'then start again. Nothing was changed.',
    );
    this.name = 'UsernameClashError';
  }
}

const BATCH = 1000;

/**
 * The data step of migration 0003: fills `users.username_key` with the canonical form of each
 * username, computed by the domain (not by SQL), in the migration's transaction. Clashes are
 * reported all at once and roll everything back, so no account silently takes another's login.
 */
export async function fillUsernameKeys(tx: SqlExecutor): Promise<void> {
  const { rows } = await tx.query<{ user_id: string; username: string }>(
    'SELECT user_id, username FROM users ORDER BY created_at, user_id',
  );
  const byKey = new Map<string, Array<{ userId: string; username: string }>>();
  for (const row of rows) {
    const key = canonicalUsername(row.username);
    const owners = byKey.get(key) ?? [];
    owners.push({ userId: row.user_id, username: row.username });
    byKey.set(key, owners);
  }
  const clashes = [...byKey.values()].filter((owners) => owners.length > 1);
  if (clashes.length > 0) throw new UsernameClashError(clashes);
  const entries = [...byKey.entries()];
  for (let start = 0; start < entries.length; start += BATCH) {
    const batch = entries.slice(start, start + BATCH);
    await tx.query(
      `UPDATE users u SET username_key = v.key
         FROM unnest($1::text[], $2::text[]) AS v(user_id, key) WHERE u.user_id = v.user_id`,
      [batch.map(([, owners]) => owners[0]!.userId), batch.map(([key]) => key)],
    );
  }
}
