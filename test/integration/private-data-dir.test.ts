/**
 * Issue 11, finding 5: the embedded database's folder and files are the service's user's only,
 * and a folder others can read is refused at start-up. Real PGlite on a real folder.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirNotPrivateError } from '../../src/adapters/sql/private-data-dir.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { openStore } from '../../src/boot/open-store.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-datadir-'));

function modesUnder(dir: string): Array<{ path: string; mode: number }> {
  const found: Array<{ path: string; mode: number }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isSymbolicLink()) found.push({ path, mode: statSync(path).mode & 0o777 });
  }
  return found;
}

describe('the embedded database folder', () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is created 0700, and no file PGlite writes (tables, WAL) is open to group or others', async () => {
    const dir = join(root, 'fresh', 'data');
    const { store } = await openStore(loadConfig({ DATA_DIR: dir }));
    try {
      await store.client.query('CREATE TABLE probe (v text)');
      await store.client.query("INSERT INTO probe VALUES ('x')");
    } finally {
      await store.close();
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const modes = modesUnder(dir);
    expect(modes.length).toBeGreaterThan(10);
    expect(modes.filter(({ mode }) => (mode & 0o077) !== 0)).toEqual([]);
  });

  it('refuses to start on a folder other users can read, naming it and the fix, and writes nothing there', async () => {
    const dir = join(root, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const error = await openStore(loadConfig({ DATA_DIR: dir })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataDirNotPrivateError);
    expect((error as Error).message).toBe(
      `DATA_DIR ${dir} is accessible to other users (mode 755); its files hold password hashes. Make it private: chmod 700 ${dir}`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('closes files an older version left open to others in a private folder', async () => {
    const dir = join(root, 'older');
    mkdirSync(dir, { mode: 0o700 });
    const { store } = await openStore(loadConfig({ DATA_DIR: dir }));
    await store.close();
    const some = modesUnder(dir).find(({ path }) => statSync(path).isFile())!;
    chmodSync(some.path, some.mode | 0o044);
    const reopened = await openStore(loadConfig({ DATA_DIR: dir }));
    await reopened.store.close();
    expect(modesUnder(dir).filter(({ mode }) => (mode & 0o077) !== 0)).toEqual([]);
  });
});
