/**
 * Runs the real benchmark (`scripts/bench.ts`) briefly, as the smoke tests do: ~1 s a phase, a
 * few users, the dist rebuilt first when a source is newer. Resolves with its JSON report.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchReport } from '../../scripts/bench/run.js';
import { projectRoot } from '../../src/boot/project-root.js';
import { dieWithTestProcess } from './reaper.js';

const root = projectRoot();

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** dist is missing, or older than some source or migration. */
function distIsStale(): boolean {
  const main = join(root, 'dist/src/start.cjs');
  if (!existsSync(main)) return true;
  const built = statSync(main).mtimeMs;
  return newestMtime(join(root, 'src')) > built || newestMtime(join(root, 'migrations')) > built;
}

export async function runBenchSmoke(
  env: Record<string, string>,
): Promise<{ report: BenchReport; stderr: string }> {
  if (distIsStale()) {
    await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
      },
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-bench-smoke-'));
  try {
    const output = join(work, 'bench.json');
    // The benchmark starts services of its own: its whole process group dies with the test process.
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/bench.ts')], {
      cwd: root,
      env: {
        ...process.env,
        BENCH_SECONDS: '1',
        BENCH_SESSIONS: '16',
        BENCH_USERS: '16',
        BENCH_SSO_USERS: '4',
        BENCH_TOTP_USERS: '16',
        BENCH_OUTPUT: output,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    dieWithTestProcess(child, { group: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the benchmark exited with ${code}:\n${stderr.slice(-4000)}`);
    const report = JSON.parse(stdout) as BenchReport;
    if (JSON.stringify(JSON.parse(readFileSync(output, 'utf8'))) !== JSON.stringify(report))
      throw new Error('the report file differs from the report printed');
    return { report, stderr };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
