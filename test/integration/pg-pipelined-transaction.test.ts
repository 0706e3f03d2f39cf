import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestPostgres, pgEnabled, type TestPgSqlClient } from '../support/databases.js';

/** Whether a promise has settled by the time the event loop has turned once. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([
    promise.then(() => true),
    new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending))),
  ]);
  return first !== pending;
}

const pgCode = (error: unknown) => (error as { code?: string }).code;

describe.skipIf(!pgEnabled)(
  'a transaction on PostgreSQL sends the writes it does not read [postgres]',
  () => {
    let client: TestPgSqlClient;

    beforeAll(async () => {
      client = await openTestPostgres({ migrated: false, poolSize: 2 });
      await client.exec('CREATE TABLE kept (id int PRIMARY KEY)');
    });
    afterAll(() => client?.close());
    beforeEach(() => client.exec('TRUNCATE kept'));

    const count = async () =>
      Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM kept')).rows[0]!.n);

    it('hands a sent write over without waiting for its answer, and commits only once it is answered', async () => {
      let answered: Promise<boolean> | undefined;
      let answeredWhenSent: boolean | undefined;
      await client.transaction(async (tx) => {
        ({ answered } = await tx.send('SELECT pg_sleep(0.3)'));
        answeredWhenSent = await settledSoon(answered);
        await tx.send('INSERT INTO kept VALUES (1)');
      });
      expect(answeredWhenSent).toBe(false);
      expect(await answered).toBe(true);
      expect(await count()).toBe(1);
    });

    it('fails the commit with a sent write’s own error, and keeps nothing of the transaction', async () => {
      const outcome = client.transaction(async (tx) => {
        await tx.send('INSERT INTO kept VALUES (1)');
        await tx.send('INSERT INTO kept VALUES (1)');
        return 'committed';
      });
      await expect(outcome).rejects.toSatisfy((error) => pgCode(error) === '23505');
      expect(await count()).toBe(0);
      // The connection went back clean: the next transactions on the pool work.
      await client.transaction((tx) => tx.send('INSERT INTO kept VALUES (2)'));
      expect(await count()).toBe(1);
    });

    it('reports a sent write’s failure, not the aborted transaction, at the next statement awaited', async () => {
      let seen: unknown;
      const outcome = client.transaction(async (tx) => {
        await tx.send('INSERT INTO kept VALUES (1)');
        await tx.send('INSERT INTO kept VALUES (1)');
        try {
          await tx.query('SELECT 1');
        } catch (error) {
          seen = error;
          throw error;
        }
      });
      await expect(outcome).rejects.toSatisfy((error) => pgCode(error) === '23505');
      expect(pgCode(seen)).toBe('23505');
      expect(await count()).toBe(0);
    });

    it('rolls back the sent writes when the work itself fails, and throws the work’s error', async () => {
      const outcome = client.transaction(async (tx) => {
        await tx.send('INSERT INTO kept VALUES (3)');
        throw new Error('the work changed its mind');
      });
      await expect(outcome).rejects.toThrow('the work changed its mind');
      expect(await count()).toBe(0);
    });

    it('waits for a write sent outside a transaction, and rejects as a query would', async () => {
      const sent = await client.send('INSERT INTO kept VALUES (4)');
      expect(await settledSoon(sent.answered)).toBe(true);
      await expect(client.send('INSERT INTO kept VALUES (4)')).rejects.toSatisfy(
        (error) => pgCode(error) === '23505',
      );
      expect(await count()).toBe(1);
    });
  },
);
