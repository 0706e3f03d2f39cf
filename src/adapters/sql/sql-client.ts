/**
 * The tiny storage port the SQL repositories are written against. Two implementations run the
 * same SQL: PostgreSQL through `pg` (src/adapters/sql/pg-sql-client.ts) and embedded PGlite
 * (src/adapters/sql/pglite-sql-client.ts).
 */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
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
  /** Runs a multi-statement script without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** A cheap round trip for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
  readonly kind: 'postgres' | 'pglite';
}
