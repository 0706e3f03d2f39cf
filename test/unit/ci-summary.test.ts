/**
 * .ci/summarize.mjs prints the line CI is judged by. A red run's log is often read from its end
 * only, so the summary names each failed test there with the start of its message.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '../../.ci/summarize.mjs');
const dir = mkdtempSync(join(tmpdir(), 'ci-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the summary on one report; answers what it printed and its exit status. */
function summarize(report: unknown): { output: string; status: number } {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(report));
  try {
    return { output: execFileSync(process.execPath, [SCRIPT, path], { encoding: 'utf8' }), status: 0 };
  } catch (error) {
    const failed = error as { stdout: string; status: number };
    return { output: failed.stdout, status: failed.status };
  }
}

const everyFamily = { status: 'passed', fullName: 'x [postgres] [redis] [redis-cluster] [fastify]' };

describe('the CI summary', () => {
  it('names a failed test, its file and the first line of its message, and fails the run', () => {
    const { output, status } = summarize({
      testResults: [
        {
          name: '/repo/test/a.test.ts',
          status: 'failed',
          assertionResults: [
            everyFamily,
            {
              status: 'failed',
              fullName: 'logs in [postgres]',
              failureMessages: ['AssertionError: expected 1 to be 2\n    at a.test.ts:3'],
            },
          ],
        },
      ],
    });
    expect(output).toContain(
      'failed: /repo/test/a.test.ts > logs in [postgres]: AssertionError: expected 1 to be 2\n',
    );
    expect(output).not.toContain('at a.test.ts:3');
    expect(output).toMatch(/1 passed, 1 failed\n$/);
    expect(status).toBe(1);
  });

  it('counts and names a file that failed outside its tests, such as a hook past its time-out', () => {
    const { output, status } = summarize({
      testResults: [
        {
          name: '/repo/test/b.test.ts',
          status: 'failed',
          message: 'Hook timed out in 240000ms.\nIf this is a long-running hook, ...',
          assertionResults: [everyFamily, { status: 'skipped', fullName: 'measures [postgres]' }],
        },
      ],
    });
    expect(output).toContain('failed outside its tests: /repo/test/b.test.ts: Hook timed out in 240000ms.\n');
    expect(output).toContain('skipped: measures [postgres]');
    // The file, and the test it left unrun.
    expect(output).toMatch(/1 passed, 2 failed\n$/);
    expect(status).toBe(1);
  });

  it('names no test when all passed', () => {
    const { output, status } = summarize({
      testResults: [{ name: '/repo/test/a.test.ts', status: 'passed', assertionResults: [everyFamily] }],
    });
    expect(output).not.toContain('failed:');
    expect(output).toMatch(/1 passed, 0 failed\n$/);
    expect(status).toBe(0);
  });
});
