/**
 * The tiny storage port the SQL repositories are written against. Two implementations run the
 * same SQL: PostgreSQL through `pg` (src/adapters/sql/pg-sql-client.ts) and embedded PGlite
 * (src/adapters/sql/pglite-sql-client.ts).
 */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** A statement sent with `send`: `answered` settles when PostgreSQL has answered it (true: it succeeded). */
export interface SentStatement {
  answered: Promise<boolean>;
}

export interface SqlExecutor {
  /**
   * One statement with `$n` parameters. `name` makes it a prepared statement where the driver
   * supports it (pg); the same name must always carry the same text.
   */
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    name?: string,
  ): Promise<QueryResult<Row>>;
  /**
   * A write whose answer nothing reads (no rows, no count). Inside a transaction on a driver that
   * pipelines (pg), it resolves as soon as the statement is on its way and travels with the next
   * one; if it fails, the transaction fails with its error at the next statement awaited or at the
   * commit, and nothing of the transaction is kept. Anywhere else it resolves once the statement is
   * done, and rejects as `query` would.
   */
  send(text: string, params?: readonly unknown[], name?: string): Promise<SentStatement>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** `send` where nothing is pipelined: the statement is run and awaited like any other. */
export async function sendAwaited(
  executor: Pick<SqlExecutor, 'query'>,
  text: string,
  params?: readonly unknown[],
  name?: string,
): Promise<SentStatement> {
  await executor.query(text, params, name);
  return { answered: Promise.resolve(true) };
}

export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** A cheap round trip for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
  readonly kind: 'postgres' | 'pglite';
}
