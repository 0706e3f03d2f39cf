/**
 * The real service in a child process (`src/start.cts`, the process entry, from the run's compiled
 * copy of the source, test/support/compiled-source.ts: the current source without a build step), for the tests that need a process of its own: outages it
 * must survive, SIGKILL, several instances on one database. The URL comes from the
 * "Gatehouse listening on ..." JSON log line on stdout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { projectRoot } from '../../../src/boot/project-root.js';
import { childEntry } from '../../support/compiled-source.js';
import { dieWithTestProcess } from '../../support/reaper.js';

export const ROOT = projectRoot();

export interface ChildService {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** The warning and error log lines so far, parsed. */
  readonly logs: Array<Record<string, unknown>>;
  /** The "Gatehouse listening on ..." line, parsed. */
  readonly startup: Record<string, unknown>;
  readonly stderr: () => string;
  /** True while the process has not exited. */
  alive(): boolean;
  /** Resolves when the process exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (default SIGTERM) and waits for the exit (SIGKILL after `graceMs`). */
  stop(
    signal?: NodeJS.Signals,
    graceMs?: number,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A last resort: never leave a child behind, even when a test file dies. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
}

/** A clean environment: nothing of the test runner's (TEST_DATABASE_URL...) leaks in. */
export function serviceEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    BOOTSTRAP_ADMIN: 'false',
    ...extra,
  };
}

/** Starts the service; LOG_LEVEL must stay `info` or lower (the URL is read from an info line). */
export async function startService(
  env: Record<string, string>,
  options: { startTimeoutMs?: number } = {},
): Promise<ChildService> {
  installExitHook();
  const child = dieWithTestProcess(
    spawn(process.execPath, childEntry(ROOT, 'start.cts'), {
      cwd: ROOT,
      env: serviceEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  running.add(child);
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const startup = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not start within ${options.startTimeoutMs ?? 30_000} ms: ${stderr}`));
    }, options.startTimeoutMs ?? 30_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      let index = pending.indexOf('\n');
      while (index >= 0) {
        const line = pending.slice(0, index);
        pending = pending.slice(index + 1);
        index = pending.indexOf('\n');
        if (!line.startsWith('{')) continue;
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          // One info line per request: only warnings and errors are kept.
          if (Number(entry.level) >= 40) logs.push(entry);
          const match = /^Gatehouse listening on (\S+)$/.exec(String(entry.msg ?? ''));
          if (match) {
            clearTimeout(timer);
            resolve(entry);
          }
        } catch {
          // not a log line
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the service exited during start-up (code ${code}, signal ${signal}): ${stderr}`));
    });
  });

  return {
    url: String(startup.url),
    pid: child.pid!,
    child,
    logs,
    startup,
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    exited,
    async stop(signal = 'SIGTERM', graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}
