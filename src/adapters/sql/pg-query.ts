import type pg from 'pg';
import type { QueryResult } from './sql-client.js';
import { translateStoreError } from './store-errors.js';

/** One statement through `pg` (a pool or one of its connections), its failure translated at the port's edge. */
export async function pgQuery<Row>(
  on: Pick<pg.Pool, 'query'> | Pick<pg.ClientBase, 'query'>,
  text: string,
  params: readonly unknown[] = [],
  name?: string,
): Promise<QueryResult<Row>> {
  try {
    const result = await (on as pg.ClientBase).query({
      text,
      values: params as unknown[],
      ...(name ? { name } : {}),
    });
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
  } catch (error) {
    return translateStoreError(error);
  }
}
