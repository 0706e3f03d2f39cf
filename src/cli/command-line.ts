import { parseArgs } from 'node:util';
import { escapeForDisplay } from '../domain/user/username.js';
import { UsageError } from './usage.js';

/** The command line's own parsing and wording, shared by every command's plan. */

export type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;
type Values = Record<string, string | boolean | undefined>;

/**
 * Shows a value from the store or the user on a terminal: control, format and invisible
 * characters are shown escaped (`adm\u{200B}in`), so no stored oddity passes for another name.
 */
export const clean = escapeForDisplay;

export function quoted(value: string): string {
  return `"${clean(value)}"`;
}

export function parse(args: readonly string[], options: OptionSpec, positionals: string[]) {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true }) as {
      values: Values;
      positionals: string[];
    };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length !== positionals.length) {
    const expected = positionals.length === 0 ? 'no argument' : positionals.join(' ');
    throw new UsageError(`expected ${expected}, got ${parsed.positionals.length} argument(s)`);
  }
  const values = parsed.values;
  const text = (name: string): string | null => {
    const value = values[name];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  return {
    args: parsed.positionals,
    text,
    required(name: string): string {
      const value = text(name);
      if (value === null) throw new UsageError(`--${name} is required`);
      return value;
    },
    flag: (name: string): boolean => values[name] === true,
  };
}

export function wholeNumber(name: string, value: string | null): number | null {
  if (value === null) return null;
  if (!/^\d{1,6}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

/** Passwords never go on the command line: refused before anything else looks at it. */
export function refusePasswordArgument(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg === '--') return;
    if (arg === '--password' || arg.startsWith('--password=')) {
      throw new UsageError(
        '--password is not accepted: a password on the command line ends up in shell history and ' +
          'process lists. Pipe it in with --password-stdin.',
      );
    }
  }
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export function unknownSubcommand(command: string, sub: string | undefined, known: string[]): UsageError {
  return new UsageError(
    sub === undefined
      ? `${command}: a subcommand is required (${known.join(', ')})`
      : `${command}: unknown subcommand ${quoted(sub)} (${known.join(', ')})`,
  );
}
