import type { User } from '../../domain/user/user.js';
import { LookupBatcher } from './lookup-batcher.js';
import type { SqlExecutor } from './sql-client.js';
import { SELECT_USER } from './sql-user-repository.js';
import { type UserRow, userFromRow } from './user-row.js';

/**
 * The user of each session check when sessions live apart from users (SESSION_STORE=redis): the
 * lookups of one event-loop turn share one `= ANY($1)` query, as the SQL store's joined session
 * lookup does. Unbatched, every request paid a query of its own and PostgreSQL's pool became the
 * bottleneck of the hot path (docs/performance.md, "Sessions on Redis"). Nothing is cached: a
 * user disabled before a request arrived is seen by that request.
 */
export class SqlUserLookup {
  private readonly batcher: LookupBatcher<string, User>;

  constructor(private readonly sql: SqlExecutor) {
    this.batcher = new LookupBatcher((ids) => this.findMany(ids), { maxBatch: 64, maxInFlight: 2 });
  }

  findByUserId(userId: string): Promise<User | null> {
    return this.batcher.load(userId);
  }

  private async findMany(ids: string[]): Promise<Map<string, User>> {
    const { rows } = await this.sql.query<UserRow>(
      `${SELECT_USER} WHERE u.user_id = ANY($1::text[])`,
      [ids],
      'users_by_ids',
    );
    const found = new Map<string, User>();
    for (const row of rows) {
      const user = userFromRow(row);
      found.set(user.userId, user);
    }
    return found;
  }
}
