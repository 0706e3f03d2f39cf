/** Starts the built service exactly as `npm start` does, as a child process, and stops it. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RunningService {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The service's stdout and stderr so far (warnings and errors at LOG_LEVEL=warn). */
  output(): string;
  /** SIGTERM, then waits for the exit; SIGKILL after `graceMs`. Resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** A free TCP port on 127.0.0.1 (cluster workers need a fixed one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The node flags and entry of package.json's `start` script (`node FLAGS... ENTRY`), so the
 * benchmark measures the service with the settings it ships with.
 */
export function startCommand(root: string): { nodeArgs: string[]; entry: string } {
  const scripts = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const tokens = (scripts.start ?? '').split(/\s+/).filter(Boolean);
  const entry = tokens.at(-1);
  if (tokens[0] !== 'node' || !entry || tokens.slice(1, -1).some((token) => !token.startsWith('--'))) {
    throw new Error(`package.json "start" is not "node --flags... entry": ${scripts.start}`);
  }
  return { nodeArgs: tokens.slice(1, -1), entry: join(root, entry) };
}

export async function startService(options: {
  root: string;
  env: Record<string, string>;
  nodeArgs?: string[];
  readyTimeoutMs?: number;
}): Promise<RunningService> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const start = startCommand(options.root);
  const child = spawn(process.execPath, [...start.nodeArgs, ...(options.nodeArgs ?? []), start.entry], {
    cwd: options.root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      BOOTSTRAP_ADMIN: 'false',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    });
  });

  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(
        `the service exited with code ${exitCode} before it was ready:\n${output.slice(-4000)}`,
      );
    }
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      await response.body?.cancel();
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service was not ready within the time limit:\n${output.slice(-4000)}`);
    }
    await sleep(100);
  }

  return {
    url,
    pid: child.pid!,
    child,
    output: () => output,
    async stop(graceMs = 15_000) {
      if (exitCode !== undefined) return exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
