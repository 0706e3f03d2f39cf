/**
 * The embedded database's folder is held by one process at a time (real PGlite on a real folder):
 * a second open in the same process is refused, the lock file is private and goes at close, and a
 * lock whose pid now belongs to another process (a pid reused after the holder died) is stale.
 * The refusal between two processes: test/cli/cli-data-dir-held.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE } from '../../src/adapters/sql/data-dir-lock.js';
import { PgliteSqlClient } from '../../src/adapters/sql/pglite-sql-client.js';
// Type-only: brings in the `ProvidedContext` augmentation for `inject`.
import type {} from '../support/global-setup.js';
import { dieWithTestProcess } from '../support/reaper.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-lock-'));

/** Opens a new folder from the global setup's empty template (no initdb), or the slow way. */
function openNew(dir: string): Promise<PgliteSqlClient> {
  const template = inject('pgliteEmptyTemplatePath');
  if (!template) return PgliteSqlClient.open(dir);
  const loadDataDir = new Blob([new Uint8Array(readFileSync(template))], { type: 'application/x-tar' });
  return PgliteSqlClient.open(dir, { loadDataDir });
}

describe('the embedded database folder is held by one process', () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a second open in the same process, and gives the folder up at close', async () => {
    const dir = join(root, 'twice');
    const first = await openNew(dir);
    try {
      const lock = join(dir, LOCK_FILE);
      expect(statSync(lock).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid });
      const error = await PgliteSqlClient.open(dir).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DataDirInUseError);
      expect((error as Error).message).toContain(
        `DATA_DIR ${dir} is held by the Gatehouse service (pid ${process.pid}, `,
      );
      // The first one is unharmed.
      expect((await first.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await first.close();
    }
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const again = await PgliteSqlClient.open(dir);
    await again.close();
  });

  it.runIf(existsSync('/proc/self/stat'))(
    'takes over a lock whose pid now belongs to another process',
    async () => {
      const dir = join(root, 'reused');
      await (await openNew(dir)).close();
      // A live process that is not the holder the lock names: same pid, another start time.
      const other = dieWithTestProcess(
        spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }),
      );
      try {
        writeFileSync(
          join(dir, LOCK_FILE),
          JSON.stringify({
            pid: other.pid,
            started: '1',
            role: 'the Gatehouse service',
            command: 'start.cjs',
            since: '2030-01-01T00:00:00.000Z',
            token: 'left-behind',
          }),
          { mode: 0o600 },
        );
        const client = await PgliteSqlClient.open(dir);
        expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
        await client.close();
      } finally {
        other.kill('SIGKILL');
      }
    },
  );
});
