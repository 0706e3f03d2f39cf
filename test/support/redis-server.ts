import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { dieWithTestProcess } from './reaper.js';

/** A test's redis-server keeps nothing on disk: no snapshots, no append-only file, its own folder. */
export function ephemeralRedisArgs(dir: string): string[] {
  return ['--save', '', '--appendonly', 'no', '--dir', dir];
}

/** A real redis-server of the test's own, on a free loopback port, nothing on disk. */
export interface TestRedis {
  port: number;
  url: string;
  /** A client for the test itself (inspecting keys); the service opens its own. */
  client: Redis;
  /** Stops the server (SIGKILL: as a crash would); `start` brings it back on the same port, empty. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Signals the server process: SIGSTOP freezes it (a replica that acknowledges nothing), SIGCONT resumes it. */
  signal(signal: NodeJS.Signals): void;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A one-off connection to the node on `port` that never retries, for probing a server that may be
 * down, frozen or starting: `work`'s answer, or `fallback` when it cannot connect or fails.
 */
export async function probeRedis<T>(
  port: number,
  work: (probe: Redis) => Promise<T>,
  fallback: (error: unknown) => T,
  password?: string,
): Promise<T> {
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    ...(password ? { password } : {}),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return await work(probe);
  } catch (error) {
    return fallback(error);
  } finally {
    probe.disconnect();
  }
}

async function waitForPing(port: number, password: string | undefined, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const up = await probeRedis(
      port,
      async (probe) => (await probe.ping()) === 'PONG',
      // Up, and wants a password.
      (error) => String(error).includes('NOAUTH'),
      password,
    );
    if (up) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `redis-server` (the machine's binary) with `extraArgs`, e.g. `['--requirepass', 'x']`. */
export async function startTestRedis(extraArgs: string[] = []): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gh-redis-'));
  let child: ChildProcess | null = null;
  const password = extraArgs.includes('--requirepass')
    ? extraArgs[extraArgs.indexOf('--requirepass') + 1]
    : undefined;
  const start = async () => {
    child = dieWithTestProcess(
      spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', ...ephemeralRedisArgs(dir), ...extraArgs],
        { stdio: 'ignore' },
      ),
    );
    try {
      await waitForPing(port, password);
    } catch (error) {
      // A server that never answered must not outlive the test run.
      child.kill('SIGKILL');
      throw error;
    }
  };
  await start();
  const client = new Redis({ port, host: '127.0.0.1', ...(password ? { password } : {}) });
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    client,
    kill,
    start,
    signal: (signal) => {
      (child as ChildProcess | null)?.kill(signal);
    },
    close: async () => {
      client.disconnect();
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
