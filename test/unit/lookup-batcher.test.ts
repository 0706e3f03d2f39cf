import { describe, expect, it } from 'vitest';
import { LookupBatcher } from '../../src/adapters/sql/lookup-batcher.js';

/** A batcher over a fixed table that records every batch it was asked to load. */
function recordingBatcher(table: Record<string, string>, maxBatch = 64, maxInFlight = 8) {
  const batches: string[][] = [];
  const batcher = new LookupBatcher<string, string>(
    async (keys) => {
      batches.push(keys);
      return new Map(keys.filter((key) => key in table).map((key) => [key, table[key]!]));
    },
    { maxBatch, maxInFlight },
  );
  return { batcher, batches };
}

describe('LookupBatcher', () => {
  it('answers the lookups of one turn with one load, each key once, unknown keys with null', async () => {
    const { batcher, batches } = recordingBatcher({ a: 'A', b: 'B' });
    const answers = await Promise.all(['a', 'b', 'x', 'a'].map((key) => batcher.load(key)));
    expect(answers).toEqual(['A', 'B', null, 'A']);
    expect(batches).toEqual([['a', 'b', 'x']]);
  });

  it('sends a lookup asked for in a later turn in a later load (nothing is kept between turns)', async () => {
    const table: Record<string, string> = { a: 'A' };
    const { batcher, batches } = recordingBatcher(table);
    expect(await batcher.load('a')).toBe('A');
    delete table.a;
    expect(await batcher.load('a')).toBeNull();
    expect(batches).toEqual([['a'], ['a']]);
  });

  it('splits a turn larger than the batch size into several loads', async () => {
    const table = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, `v${i}`]));
    const { batcher, batches } = recordingBatcher(table, 4);
    const answers = await Promise.all(Object.keys(table).map((key) => batcher.load(key)));
    expect(answers).toEqual(Object.values(table));
    expect(batches.map((batch) => batch.length)).toEqual([4, 4, 2]);
  });

  it('holds lookups while the limit of loads is out, then sends them together', async () => {
    const releases: Array<() => void> = [];
    const batches: string[][] = [];
    const batcher = new LookupBatcher<string, string>(
      (keys) => {
        batches.push(keys);
        return new Promise((resolve) => releases.push(() => resolve(new Map(keys.map((key) => [key, key])))));
      },
      { maxBatch: 64, maxInFlight: 2 },
    );
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = batcher.load('a');
    await turn();
    const second = batcher.load('b');
    await turn();
    const held = ['c', 'd', 'e'].map((key) => batcher.load(key));
    await turn();
    await turn();
    expect(batches).toEqual([['a'], ['b']]);
    releases[0]!();
    expect(await first).toBe('a');
    await turn();
    expect(batches).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
    releases[1]!();
    releases[2]!();
    expect(await second).toBe('b');
    expect(await Promise.all(held)).toEqual(['c', 'd', 'e']);
  });

  it('rejects every waiter of a failed load with its error, and the next turn loads again', async () => {
    let fail = true;
    const batcher = new LookupBatcher<string, string>(
      async (keys) => {
        if (fail) throw new Error('store down');
        return new Map(keys.map((key) => [key, key.toUpperCase()]));
      },
      { maxBatch: 64, maxInFlight: 2 },
    );
    const results = await Promise.allSettled([batcher.load('a'), batcher.load('a'), batcher.load('b')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('store down'));
    fail = false;
    expect(await batcher.load('b')).toBe('B');
  });
});
