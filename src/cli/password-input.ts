import { UsageError } from './usage.js';

/** Enough for any password the policy allows (1024 code points, up to 4 bytes each) and then some. */
const MAX_STDIN_BYTES = 16 * 1024;

export interface PasswordSource {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  /** Prompts go to standard error, so standard output stays clean for scripts. */
  stderr: { write(text: string): unknown };
}

/**
 * Reads the password for `--password-stdin`. From a pipe or file: everything up to the end, minus
 * one final line break; it must be one line. From a terminal: asked twice, without echo.
 * The password never passes through the command line (shell history, `ps`).
 */
export async function readPassword(source: PasswordSource, label: string): Promise<string> {
  if (source.stdin.isTTY && typeof source.stdin.setRawMode === 'function') {
    const first = await promptHidden(source, `Password for ${label}: `);
    const second = await promptHidden(source, 'Repeat it: ');
    if (first !== second) throw new UsageError('the two passwords typed differ');
    return first;
  }
  return readPiped(source.stdin);
}

/**
 * Reads several secrets, one per line, in the order of `labels` (a provider's client secret, then
 * its `--setting-stdin` values). From a pipe or file: exactly that many non-empty lines. From a
 * terminal: each asked in turn, twice, without echo. One label reads as `readPassword` does.
 */
export async function readSecretLines(source: PasswordSource, labels: readonly string[]): Promise<string[]> {
  if (labels.length === 1 || (source.stdin.isTTY && typeof source.stdin.setRawMode === 'function')) {
    const values: string[] = [];
    for (const label of labels) values.push(await readPassword(source, label));
    return values;
  }
  const lines = (await readPipedText(source.stdin, labels.length)).split(/\r?\n/);
  if (lines.length !== labels.length || lines.some((line) => line.length === 0)) {
    throw new UsageError(
      `standard input must hold ${labels.length} non-empty lines, in this order: ${labels.join('; ')}`,
    );
  }
  return lines;
}

/** Standard input as text (at most `MAX_STDIN_BYTES` a line expected), less one final line break. */
async function readPipedText(stdin: NodeJS.ReadableStream, lines = 1): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > MAX_STDIN_BYTES * lines) throw new UsageError('standard input is too long for a password');
    chunks.push(buffer);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new UsageError('the password on standard input is not valid UTF-8');
  }
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

async function readPiped(stdin: NodeJS.ReadableStream): Promise<string> {
  const text = await readPipedText(stdin);
  if (text.length === 0) throw new UsageError('no password on standard input (pipe it in, one line)');
  if (/[\r\n]/.test(text)) throw new UsageError('standard input must hold the password on one line');
  return text;
}

function promptHidden(source: PasswordSource, prompt: string): Promise<string> {
  const stdin = source.stdin as NodeJS.ReadStream;
  source.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      source.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n' || character === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (character === '\u0003') {
          finish();
          reject(new UsageError('cancelled'));
          return;
        }
        if (character === '\u007f' || character === '\b') {
          value = [...value].slice(0, -1).join('');
        } else {
          value += character;
        }
      }
    };
    stdin.on('data', onData);
  });
}
