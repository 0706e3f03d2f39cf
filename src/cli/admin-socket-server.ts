import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import {
  adminSocketPath,
  type CommandRequest,
  encodeLine,
  type Frame,
  MAX_REQUEST_BYTES,
  parseRequest,
} from './admin-socket-protocol.js';

/** The service's log, as the socket writes to it (the service's logger fits). */
export interface SocketLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Where a command run for a caller writes: sent back to it as frames. */
export interface ForwardedIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Runs one command line in the service (the `gatehouse` command's own code); gives the exit status. */
export type RunForwarded = (request: CommandRequest, io: ForwardedIo) => Promise<number>;

export interface AdminSocket {
  readonly path: string;
  /** Stops taking commands, lets the one running finish, removes the socket file. */
  close(): Promise<void>;
}

/** A caller that connects and sends nothing (or never finishes) is let go after this long. */
const REQUEST_READ_TIMEOUT_MS = 30_000;
/** Callers connected at once, waiting ones included; more are refused by the kernel's backlog. */
const MAX_CONNECTIONS = 16;

/**
 * The service's administration socket on the embedded database (protocol: admin-socket-protocol.ts).
 * Who may connect is who may open the socket file: it is made 0600 in DATA_DIR, itself 0700 (both
 * checked at start-up), so only the service's own user (and root). Node offers no peer-credential
 * check, so these modes are the whole of it, as for the database files next to it.
 * Commands run one at a time, in the order their requests arrive, as they would one after another
 * from a shell; a request is bounded (MAX_REQUEST_BYTES, REQUEST_READ_TIMEOUT_MS). The log names
 * each command by its first two words and exit status, never its arguments or inputs.
 */
export async function startAdminSocket(options: {
  dataDir: string;
  logger: SocketLog;
  run: RunForwarded;
}): Promise<AdminSocket | null> {
  const { logger } = options;
  const path = adminSocketPath(options.dataDir);
  if (path === null) {
    logger.warn(
      { event: 'admin_socket_unavailable' },
      'DATA_DIR is too long a path for the administration socket: gatehouse commands cannot reach this service; use a shorter DATA_DIR',
    );
    return null;
  }
  // This process holds DATA_DIR (its lock), so a socket file there is a previous holder's.
  rmSync(path, { force: true });

  let queue: Promise<void> = Promise.resolve();
  const connections = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    readRequest(socket, (request) => {
      queue = queue.then(() => runOne(socket, request, options.run, logger));
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  server.on('error', (error) => logger.error({ err: error.message }, 'administration socket error'));
  logger.info({ event: 'admin_socket_listening' }, 'gatehouse commands reach this service through DATA_DIR');

  return {
    path,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Callers still sending their request are let go; the running command finishes.
      for (const socket of connections) if (!socket.readableEnded) socket.destroy();
      await queue;
      await closed;
      rmSync(path, { force: true });
    },
  };
}

function send(socket: Socket, frame: Frame): void {
  if (!socket.destroyed) socket.write(encodeLine(frame));
}

function refuse(socket: Socket, message: string): void {
  send(socket, { stderr: `error INVALID_REQUEST: ${message}\n` });
  send(socket, { exit: 1 });
  socket.end();
}

/** Reads the one request of a connection, bounded in size and time. */
function readRequest(socket: Socket, then: (request: CommandRequest) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  socket.setTimeout(REQUEST_READ_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => {
    // The caller went away; nothing to answer.
  });
  socket.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) {
      socket.removeAllListeners('data');
      socket.pause();
      refuse(socket, `the request is larger than ${MAX_REQUEST_BYTES} bytes`);
      return;
    }
    chunks.push(chunk);
  });
  socket.on('end', () => {
    if (size > MAX_REQUEST_BYTES) return;
    socket.setTimeout(0);
    const request = parseRequest(Buffer.concat(chunks).toString('utf8'));
    if (request === null) refuse(socket, 'not a gatehouse command request');
    else then(request);
  });
}

async function runOne(socket: Socket, request: CommandRequest, run: RunForwarded, logger: SocketLog) {
  const command = request.argv.slice(0, 2).join(' ');
  let status: number;
  try {
    status = await run(request, {
      stdout: { write: (text: string) => send(socket, { stdout: text }) },
      stderr: { write: (text: string) => send(socket, { stderr: text }) },
    });
  } catch (error) {
    // The command reports its own failures; this is for a fault in running it at all.
    logger.error(
      { err: error instanceof Error ? error.message : String(error) },
      'administration command failed',
    );
    send(socket, { stderr: 'error INTERNAL_ERROR: the service could not run the command (see its log)\n' });
    status = 1;
  }
  send(socket, { exit: status });
  socket.end();
  logger.info({ event: 'admin_command', command, exit: status }, `gatehouse ${command}: exit ${status}`);
}
