import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentHolder, DataDirInUseError } from '../boot/command-failures.js';
import { DomainError } from '../domain/shared/domain-error.js';
import {
  adminSocketPath,
  type CommandRequest,
  encodeLine,
  MAX_REQUEST_BYTES,
  parseFrame,
} from './admin-socket-protocol.js';

interface Output {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** How long a service that holds DATA_DIR may take to open its socket (it is starting). */
const ANSWER_WAIT_MS = 10_000;
const RETRY_MS = 100;

const SERVICE = 'the Gatehouse service';

/** Whether the process holding `dataDir` now is the service (so the command asks it). */
export function serviceHolds(dataDir: string): boolean {
  return currentHolder(dataDir)?.role === SERVICE;
}

/**
 * Has the service holding `dataDir` run the command (admin-socket-protocol.ts), writing what it
 * answers to `io`; resolves to the command's exit status. Resolves to null when no service holds
 * the folder any more (it stopped meanwhile): the caller then opens the database itself.
 * A service that holds the folder but does not answer is DataDirInUseError, saying so.
 */
export async function runInService(
  dataDir: string,
  request: CommandRequest,
  io: Output,
): Promise<number | null> {
  const payload = encodeLine(request);
  const size = Buffer.byteLength(payload);
  if (size > MAX_REQUEST_BYTES) {
    throw new DomainError(
      'PAYLOAD_TOO_LARGE',
      `the command with its input is ${size} bytes, more than the running service takes (${MAX_REQUEST_BYTES}): ` +
        'split the file, or stop the service and run the command again',
    );
  }
  const socket = await reach(dataDir);
  if (socket === null) return null;
  return exchange(socket, payload, io);
}

async function reach(dataDir: string): Promise<Socket | null> {
  const deadline = Date.now() + ANSWER_WAIT_MS;
  for (;;) {
    const holder = currentHolder(dataDir);
    if (holder === null) return null;
    if (holder.role !== SERVICE) throw new DataDirInUseError(dataDir, holder);
    const path = adminSocketPath(dataDir);
    if (path === null) {
      throw new DataDirInUseError(
        dataDir,
        holder,
        'cannot open an administration socket there (the path is too long)',
      );
    }
    try {
      return await open(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not there yet (the service is starting) or left by one that stopped: look again.
      const transient = code === 'ENOENT' || code === 'ECONNREFUSED';
      if (!transient || Date.now() > deadline) {
        throw new DataDirInUseError(
          dataDir,
          holder,
          `does not answer on its administration socket ${path} (${code ?? 'error'})`,
        );
      }
    }
    await sleep(RETRY_MS);
  }
}

function open(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path, allowHalfOpen: true });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function exchange(socket: Socket, payload: string, io: Output): Promise<number> {
  return new Promise((resolve, reject) => {
    let pending = '';
    let status: number | null = null;
    const lost = (cause: unknown) =>
      new DomainError(
        'SERVICE_UNAVAILABLE',
        'the service ended the exchange before the command finished; it may or may not have run',
        { cause },
      );
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let index = pending.indexOf('\n');
      while (index >= 0) {
        const frame = parseFrame(pending.slice(0, index));
        pending = pending.slice(index + 1);
        index = pending.indexOf('\n');
        if (frame === null) continue;
        if ('stdout' in frame) io.stdout.write(frame.stdout);
        else if ('stderr' in frame) io.stderr.write(frame.stderr);
        else status = frame.exit;
      }
    });
    socket.on('error', (error) => {
      if (status === null) reject(lost(error));
    });
    socket.on('close', () => {
      if (status === null) reject(lost(new Error('connection closed without an exit status')));
      else resolve(status);
    });
    socket.end(payload);
  });
}
