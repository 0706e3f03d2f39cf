import type pg from 'pg';
import { pgQuery } from './pg-query.js';
import type { QueryResult, SentStatement, SqlExecutor } from './sql-client.js';
import { translateStoreError } from './store-errors.js';

/** The socket under a `pg` client, where the driver exposes it (it does in every 8.x release). */
function socketOf(client: pg.ClientBase): { cork(): void; uncork(): void } | null {
  const stream = (
    client as unknown as { connection?: { stream?: Partial<{ cork(): void; uncork(): void }> } }
  ).connection?.stream;
  return stream?.cork && stream.uncork ? (stream as { cork(): void; uncork(): void }) : null;
}

/**
 * One transaction on a connection in `pg`'s pipeline mode. A round trip to PostgreSQL costs both
 * sides a socket write and a wake-up, which on a small machine is most of what a short statement
 * costs; so the statements whose answer nothing reads (`send`: BEGIN, an audit record, a throttle
 * settlement, a session insert) are written at once and travel with the next statement that is
 * awaited, in one socket write (the socket is corked until the end of the tick). PostgreSQL runs
 * them in order; one that fails aborts the transaction, every later statement fails, and the
 * COMMIT becomes a ROLLBACK. So the first failure of a sent statement is what the transaction
 * throws: from the next awaited statement, or from the commit, and nothing of it is kept.
 */
export class PgPipelinedTransaction {
  private readonly pending: Promise<boolean>[] = [];
  private failure: { error: unknown } | null = null;
  private corked = false;

  constructor(private readonly client: pg.ClientBase) {}

  /** BEGIN, sent without waiting: it travels with the transaction's first statement. */
  begin(): void {
    this.sendNow('BEGIN', []);
  }

  readonly executor: SqlExecutor = {
    query: <Row>(text: string, params: readonly unknown[] = [], name?: string): Promise<QueryResult<Row>> =>
      this.awaited(() => pgQuery<Row>(this.client, text, params, name)),
    send: async (text: string, params: readonly unknown[] = [], name?: string): Promise<SentStatement> => ({
      answered: this.sendNow(text, params, name),
    }),
    exec: (script: string): Promise<void> =>
      this.awaited(async () => {
        try {
          await this.client.query(script);
        } catch (error) {
          translateStoreError(error);
        }
      }),
  };

  private async awaited<T>(statement: () => Promise<T>): Promise<T> {
    this.gather();
    try {
      return await statement();
    } catch (error) {
      // A statement sent earlier failed first: that failure is the cause of this one.
      await this.settled();
      throw this.failure ? this.failure.error : error;
    }
  }

  /** COMMIT; throws the first failure of a sent statement (PostgreSQL then rolled back instead). */
  async commit(): Promise<void> {
    await this.executor.query('COMMIT');
    await this.settled();
    if (this.failure) throw this.failure.error;
  }

  /**
   * After the work failed: waits for what is still on its way, and answers the failure to report
   * (a sent statement's, which came first, or the work's own).
   */
  async abandoned(error: unknown): Promise<unknown> {
    await this.settled();
    return this.failure ? this.failure.error : error;
  }

  private sendNow(text: string, params: readonly unknown[], name?: string): Promise<boolean> {
    this.gather();
    const answered = pgQuery(this.client, text, params, name).then(
      () => true,
      (error: unknown) => {
        this.failure ??= { error };
        return false;
      },
    );
    this.pending.push(answered);
    return answered;
  }

  /** Holds this tick's writes in the socket, so they leave in one write. */
  private gather(): void {
    if (this.corked) return;
    const socket = socketOf(this.client);
    if (!socket) return;
    socket.cork();
    this.corked = true;
    process.nextTick(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  private async settled(): Promise<void> {
    await Promise.all(this.pending);
  }
}
