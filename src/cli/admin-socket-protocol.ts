import { join, resolve } from 'node:path';

/**
 * The running service's administration socket on the embedded database: a Unix domain socket in
 * DATA_DIR (a folder private to the service's user), through which a `gatehouse` command that
 * finds DATA_DIR held by the service has the service run it (docs/architecture.md).
 *
 * One exchange a connection. The command sends one request, JSON on one line, and closes its
 * side; the service answers with frames, JSON one a line: `{"stdout": text}` and
 * `{"stderr": text}` as the command writes them, then `{"exit": status}`, and closes.
 */
export const SOCKET_FILE = 'gatehouse.sock';

/** An address holds at most 108 bytes on Linux and 104 on macOS and the BSDs, with a final NUL. */
const MAX_SOCKET_PATH_BYTES = 103;

/**
 * The largest request the service reads: room for an import file of about 100,000 users. A
 * larger one is refused by the command before sending and cut off by the service.
 */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** The most arguments, and bytes in one, a request may carry (a command line is far shorter). */
const MAX_ARGS = 256;
const MAX_ARG_LENGTH = 4096;
/** The most secret lines, and bytes in one (a private key JWK of 4096 bits is about 7 KiB). */
const MAX_SECRETS = 64;
const MAX_SECRET_LENGTH = 64 * 1024;

/** What the command sends: its arguments and what it read itself (standard input, its file). */
export interface CommandRequest {
  argv: string[];
  /** The password or secret the command read for `--password-stdin` (and the like), else null. */
  secret: string | null;
  /** The secret lines the command read for `--client-secret-stdin`, `--setting-stdin` and the like. */
  secrets: string[];
  /** The content of the file the command names (`import FILE`), read by the command, else null. */
  file: string | null;
}

export type Frame = { stdout: string } | { stderr: string } | { exit: number };

/** The socket's path in `dataDir`, or null when it is too long for a socket address. */
export function adminSocketPath(dataDir: string): string | null {
  const path = join(resolve(dataDir), SOCKET_FILE);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES ? path : null;
}

export function encodeLine(value: CommandRequest | Frame): string {
  return `${JSON.stringify(value)}\n`;
}

const isStringOrNull = (value: unknown): value is string | null =>
  value === null || typeof value === 'string';

/** The JSON object on `text`, or null when it holds none. */
function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The request in `text`, or null when it is not one (the service then answers with an error). */
export function parseRequest(text: string): CommandRequest | null {
  const value = jsonObject(text);
  if (value === null) return null;
  const { argv, secret, secrets, file } = value;
  if (!Array.isArray(argv) || argv.length > MAX_ARGS) return null;
  if (!argv.every((arg) => typeof arg === 'string' && arg.length <= MAX_ARG_LENGTH)) return null;
  if (!isStringOrNull(secret) || !isStringOrNull(file)) return null;
  if (!Array.isArray(secrets) || secrets.length > MAX_SECRETS) return null;
  if (!secrets.every((line) => typeof line === 'string' && line.length <= MAX_SECRET_LENGTH)) return null;
  return { argv: argv as string[], secret, secrets: secrets as string[], file };
}

/** One frame of the service's answer, or null when the line is not one. */
export function parseFrame(line: string): Frame | null {
  const frame = jsonObject(line);
  if (frame === null) return null;
  if (typeof frame.stdout === 'string') return { stdout: frame.stdout };
  if (typeof frame.stderr === 'string') return { stderr: frame.stderr };
  if (Number.isInteger(frame.exit)) return { exit: frame.exit as number };
  return null;
}
