import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCopyOfCheckout } from '../support/built-copy.js';
import { testMigrations } from '../support/databases.js';
import {
  CLI_TEST_TIMEOUT_MS,
  type CliTarget,
  countRows,
  openCliTarget,
  runGatehouse,
} from './cli-support.js';

/** The checkout's command, built in a copy of its own (test/support/built-copy.ts). */
const BUILD = mkdtempSync(join(tmpdir(), 'gatehouse-cli-bin-'));
const BIN = join(BUILD, 'bin/gatehouse.js');

/** The installed command: `bin/gatehouse.js` over the compiled code in dist/ (as `npm run gatehouse`). */
describe('bin/gatehouse.js, the built command [pglite]', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let target: CliTarget;
  let dir: string;

  beforeAll(async () => {
    await buildCopyOfCheckout(BUILD);
    target = await openCliTarget('pglite', { migrated: false });
    dir = await mkdtemp(join(tmpdir(), 'gatehouse-bin-'));
  }, 180_000);
  afterAll(async () => {
    rmSync(BUILD, { recursive: true, force: true });
    await target?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is an executable node script that migrates the configured database', async () => {
    expect((await stat(BIN)).mode & 0o111).not.toBe(0);
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        // Run as a program (shebang), not as `node bin/gatehouse.js`.
        const child = spawn(BIN, ['migrate'], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...target.env },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
        });
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      },
    );
    const applied = testMigrations().map((migration) => `applied migration ${migration.name}\n`);
    expect(result).toEqual({ code: 0, stdout: applied.join(''), stderr: '' });
  });

  it('imports a file and prints the counts', async () => {
    const file = join(dir, 'users.jsonl');
    await writeFile(
      file,
      [
        { kind: 'tenant', id: 't1', name: 'Acme' },
        { kind: 'group', id: 'g1', tenant_id: 't1' },
        {
          kind: 'user',
          username: 'ann',
          user_level: 0,
          tenant_id: 't1',
          group_id: 'g1',
          password: 'ann own one',
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const result = await runGatehouse(['import', file], { env: target.env, bin: BIN });
    expect(result).toEqual({
      code: 0,
      stdout: `imported ${file}: 1 tenant, 0 backends, 1 group, 1 user\n`,
      stderr: '',
    });
    expect(await target.withStore((store) => countRows(store, 'users'))).toBe(1);
  });

  it('says to run npm run build when dist/ is missing, exit 2', async () => {
    const copy = join(dir, 'unbuilt', 'bin', 'gatehouse.js');
    await mkdir(join(dir, 'unbuilt', 'bin'), { recursive: true });
    await copyFile(BIN, copy);
    const result = await runGatehouse(['help'], { bin: copy });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Run "npm run build"');
  });
});
