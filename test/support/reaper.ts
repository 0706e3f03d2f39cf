/**
 * Long-lived processes a test starts (redis-server, nginx, Caddy) die with the test process, even
 * when it is killed before its teardown runs (StrykerJS stops its test runner so). The first
 * registration starts a watcher (reaper-watcher.mjs) in a session of its own, whose stdin is a
 * pipe from this process: when that pipe ends, the watcher SIGKILLs every process still
 * registered. A process is deregistered once it has exited and been reaped, so a pid the system
 * gave to another process since is never killed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { join } from 'node:path';

let watcher: Socket | undefined;

function tell(line: string): void {
  if (!watcher) {
    const child = spawn(process.execPath, [join(import.meta.dirname, 'reaper-watcher.mjs')], {
      // Its own session: a Ctrl-C meant for the test run does not stop it before its work.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    // Neither the watcher nor the pipe to it keeps the test process alive.
    child.unref();
    watcher = child.stdin as Socket;
    watcher.unref();
    // A watcher killed along with the test process's tree: nothing left to tell.
    watcher.on('error', () => undefined);
  }
  watcher.write(`${line}\n`);
}

/**
 * Kills `target` (a pid, or `-pgid` for a whole process group) if this process dies first; the
 * returned function deregisters it.
 */
export function register(target: number): () => void {
  tell(`add ${target}`);
  return () => tell(`remove ${target}`);
}

/**
 * Registers `child` (with `group`: the process group it leads, spawned `detached`) until it exits.
 * Once Node has seen the exit the pid is free for reuse, so it is deregistered then.
 */
export function dieWithTestProcess(child: ChildProcess, options: { group?: boolean } = {}): ChildProcess {
  if (child.pid === undefined) return child;
  child.once('exit', register(options.group ? -child.pid : child.pid));
  return child;
}

/**
 * SIGKILLs the process group `leader` leads (spawned `detached`), whatever of it is left: a
 * wrapper's child lives on in the group after the wrapper is gone.
 */
export function killGroup(leader: ChildProcess | undefined): void {
  if (leader?.pid === undefined) return;
  try {
    process.kill(-leader.pid, 'SIGKILL');
  } catch {
    // Nothing of it is left.
  }
}
