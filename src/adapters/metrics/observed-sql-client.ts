import type { QueryResult, SqlClient, SqlExecutor } from '../sql/sql-client.js';

/** Told each statement's duration; `statement` is the prepared-statement name, if any. */
export type SqlQueryObserver = (query: {
  statement: string | undefined;
  durationS: number;
  ok: boolean;
}) => void;

function timedQuery(executor: SqlExecutor, observe: SqlQueryObserver): SqlExecutor['query'] {
  return async <Row>(text: string, params?: readonly unknown[], name?: string): Promise<QueryResult<Row>> => {
    const started = performance.now();
    let ok = false;
    try {
      const result = await executor.query<Row>(text, params, name);
      ok = true;
      return result;
    } finally {
      observe({ statement: name, durationS: (performance.now() - started) / 1000, ok });
    }
  };
}

/** A sent write is timed until PostgreSQL answered it, which in a pipelined transaction is later. */
function timedSend(executor: SqlExecutor, observe: SqlQueryObserver): SqlExecutor['send'] {
  return async (text, params, name) => {
    const started = performance.now();
    let sent: Awaited<ReturnType<SqlExecutor['send']>>;
    try {
      sent = await executor.send(text, params, name);
    } catch (error) {
      observe({ statement: name, durationS: (performance.now() - started) / 1000, ok: false });
      throw error;
    }
    void sent.answered.then((ok) =>
      observe({ statement: name, durationS: (performance.now() - started) / 1000, ok }),
    );
    return sent;
  };
}

function timed(executor: SqlExecutor, observe: SqlQueryObserver): SqlExecutor {
  return {
    query: timedQuery(executor, observe),
    send: timedSend(executor, observe),
    exec: (script) => executor.exec(script),
  };
}

/**
 * The SqlClient port, timed: every statement the repositories run (inside transactions too) is
 * reported to `observe`. Works the same over pg and PGlite. Migration scripts (`exec`) and the
 * driver's own BEGIN/COMMIT are not timed.
 */
export function observedSqlClient(client: SqlClient, observe: SqlQueryObserver): SqlClient {
  return {
    kind: client.kind,
    ...timed(client, observe),
    transaction: (work) => client.transaction((tx) => work(timed(tx, observe))),
    ping: () => client.ping(),
    close: () => client.close(),
  };
}
