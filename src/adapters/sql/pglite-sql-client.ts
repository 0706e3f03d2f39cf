import { PGlite } from '@electric-sql/pglite';
import { DataDirLock } from './data-dir-lock.js';
import { closeFilesToOthers, preparePrivateDataDir } from './private-data-dir.js';
import { type QueryResult, type SqlClient, type SqlExecutor, sendAwaited } from './sql-client.js';
import { translateStoreError } from './store-errors.js';

type PgliteLike = Pick<PGlite, 'query' | 'exec'>;

function executor(db: PgliteLike): SqlExecutor {
  const self: SqlExecutor = {
    async query<Row>(text: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      let result: Awaited<ReturnType<typeof db.query<Row>>>;
      try {
        result = await db.query<Row>(text, params as unknown[]);
      } catch (error) {
        return translateStoreError(error);
      }
      // PGlite reports affectedRows 0 for a SELECT; pg's rowCount counts the rows returned.
      return { rows: result.rows, rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
    },
    send: (text, params) => sendAwaited(self, text, params),
    async exec(script: string): Promise<void> {
      try {
        await db.exec(script);
      } catch (error) {
        translateStoreError(error);
      }
    },
  };
  return self;
}

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) in a data directory: the default when no
 * DATABASE_URL is set, so the service runs on a bare machine. One connection; PGlite queues
 * statements and transactions itself.
 */
export class PgliteSqlClient implements SqlClient {
  readonly kind = 'pglite' as const;

  private constructor(
    readonly db: PGlite,
    private readonly dataDir: string | undefined,
    private readonly lock: DataDirLock | null,
  ) {}

  /**
   * `dataDir` undefined means in memory. `loadDataDir` restores a dumped template (fast start in
   * tests). A folder on disk is made (or must already be) private to this user, and the files
   * PGlite creates (0666 by its own choice) are closed to others after opening and after closing.
   * It is held for this process until close(): a folder another process holds is refused
   * (DataDirInUseError) before anything is read or written there.
   */
  static async open(dataDir?: string, options: { loadDataDir?: Blob } = {}): Promise<PgliteSqlClient> {
    if (!dataDir) {
      const db = await PGlite.create(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {});
      return new PgliteSqlClient(db, undefined, null);
    }
    preparePrivateDataDir(dataDir);
    const lock = DataDirLock.take(dataDir);
    try {
      closeFilesToOthers(dataDir);
      const db = await PGlite.create({
        dataDir,
        ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      });
      closeFilesToOthers(dataDir);
      return new PgliteSqlClient(db, dataDir, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  query<Row = Record<string, unknown>>(
    text: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    return executor(this.db).query<Row>(text, params);
  }

  send(text: string, params?: readonly unknown[]) {
    return sendAwaited(this, text, params);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction((tx) => work(executor(tx)));
    } catch (error) {
      return translateStoreError(error);
    }
  }

  exec(script: string): Promise<void> {
    return executor(this.db).exec(script);
  }

  async ping(): Promise<void> {
    await executor(this.db).query('SELECT 1');
  }

  async close(): Promise<void> {
    try {
      if (!this.db.closed) await this.db.close();
      if (this.dataDir) closeFilesToOthers(this.dataDir);
    } finally {
      this.lock?.release();
    }
  }
}
