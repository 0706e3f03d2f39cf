import pg from 'pg';
import { isDomainError } from '../../domain/shared/domain-error.js';
import { PgPipelinedTransaction } from './pg-pipelined-transaction.js';
import { pgQuery } from './pg-query.js';
import { type QueryResult, type SqlClient, type SqlExecutor, sendAwaited } from './sql-client.js';
import { translateStoreError } from './store-errors.js';

export interface PgSqlClientOptions {
  connectionString: string;
  poolSize: number;
  /** How long a request may queue for a connection before it is shed with 503. */
  connectionTimeoutMs: number;
  statementTimeoutMs: number;
  onPoolError?: (error: Error) => void;
}

/** PostgreSQL through a `pg` Pool. */
export class PgSqlClient implements SqlClient {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;

  constructor(options: PgSqlClientOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectionTimeoutMs,
      statement_timeout: options.statementTimeoutMs,
      query_timeout: options.statementTimeoutMs + 1000,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
      // Lets a transaction send the statements whose answers it does not read without waiting for
      // them (PgPipelinedTransaction). A pooled connection serves one caller at a time, so nothing
      // else changes: a lone statement goes out and is answered as before.
      pipeline: true,
    } as pg.PoolConfig);
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', (error) => options.onPoolError?.(error));
  }

  send(text: string, params?: readonly unknown[], name?: string) {
    return sendAwaited(this, text, params, name);
  }

  query<Row = Record<string, unknown>>(
    text: string,
    params: readonly unknown[] = [],
    name?: string,
  ): Promise<QueryResult<Row>> {
    return pgQuery<Row>(this.pool, text, params, name);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      return translateStoreError(error);
    }
    let broken = false;
    // A connection lost while checked out is reported as an 'error' event on it, which the pool
    // listens for only while the connection is idle; unheard, it would end the process. (In
    // pipeline mode the driver itself closes a connection whose statement ran past the read
    // time-out.) Its statements fail as well, which is how the transaction learns of it.
    const lost = () => {
      broken = true;
    };
    client.on('error', lost);
    const transaction = new PgPipelinedTransaction(client);
    try {
      transaction.begin();
      let result: T;
      try {
        result = await work(transaction.executor);
      } catch (error) {
        throw await transaction.abandoned(error);
      }
      await transaction.commit();
      return result;
    } catch (error) {
      if (isDomainError(error) && error.code === 'SERVICE_UNAVAILABLE') {
        // A connection that failed or timed out cannot be trusted to answer ROLLBACK either (a
        // stalled server would hold it for another read time-out): drop it; PostgreSQL rolls back
        // the transaction of a closed connection.
        broken = true;
        throw error;
      }
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw error;
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }

  async exec(script: string): Promise<void> {
    try {
      await this.pool.query(script);
    } catch (error) {
      translateStoreError(error);
    }
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
