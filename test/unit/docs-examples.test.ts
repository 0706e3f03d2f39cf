/**
 * docs/stores.md shows a worked session store and its proof; the same code lives in
 * test/examples/, where it is type-checked and run against the testing kit. This keeps the two
 * identical (the import path aside), so the document always shows code that compiles and passes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The repository's import of the kit, as an adopter writes it. */
const asAdopter = (source: string) =>
  source
    .replaceAll("'../../src/testing/stores.js'", "'@gatehouse-auth/gatehouse-testing/stores'")
    .replaceAll("'../../src/testing/store-runtime.js'", "'@gatehouse-auth/gatehouse-testing/store-runtime'");

describe('docs/stores.md', () => {
  const blocks = [...read('docs/stores.md').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);

  it('shows the example store exactly as test/examples/key-value-session-store.ts has it', () => {
    expect(blocks[0]).toBe(asAdopter(read('test/examples/key-value-session-store.ts')));
  });

  it('shows its proof exactly as test/examples/key-value-session-store.test.ts has it', () => {
    expect(blocks[1]).toBe(asAdopter(read('test/examples/key-value-session-store.test.ts')));
  });

  it('shows the throttle store and the SESSION_STORE_MODULE module exactly as test/examples/ has them', () => {
    expect(blocks[2]).toBe(asAdopter(read('test/examples/key-value-throttle-store.ts')));
    expect(blocks[3]).toBe(asAdopter(read('test/examples/key-value-store-module.ts')));
  });
});
