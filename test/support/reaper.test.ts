/**
 * The reaper (reaper.ts): what a test process started dies with it, even when it is killed before
 * its teardown ran; what it deregistered is left alone (its pid may be another process's by then).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

/** A test process of its own: a TestRedis, and a process it registered then deregistered. */
const TEST_PROCESS = `
import { spawn } from 'node:child_process';
import { register } from ${JSON.stringify(join(import.meta.dirname, 'reaper.ts'))};
import { startTestRedis } from ${JSON.stringify(join(import.meta.dirname, 'redis-server.ts'))};

const redis = await startTestRedis();
const server = Number(/process_id:(\\d+)/.exec(await redis.client.info('server'))[1]);
const bystander = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
register(bystander.pid)();
process.stdout.write(JSON.stringify({ server, bystander: bystander.pid }) + '\\n');
`;

/** Whether `pid` is a live process: a killed orphan is a zombie until init reaps it, dead all the same. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

async function eventuallyGone(pid: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (running(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the reaper of test servers', () => {
  it('kills what a SIGKILLed test process left registered, and nothing it deregistered', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', TEST_PROCESS], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const [line] = await once(createInterface({ input: child.stdout! }), 'line');
    const { server, bystander } = JSON.parse(line) as { server: number; bystander: number };
    try {
      expect(running(server)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      await eventuallyGone(server);
      expect(running(bystander)).toBe(true);
    } finally {
      process.kill(bystander, 'SIGKILL');
    }
  }, 60_000);
});
