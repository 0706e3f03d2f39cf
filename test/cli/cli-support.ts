/**
 * Runs the real `gatehouse` command in a child process against a database of its own:
 * - PGlite: a data directory on disk (DATA_DIR), restored from the test templates of
 *   test/support/global-setup.ts, so no initdb is paid; the test opens it in-process only between
 *   two runs (the embedded database is single-process);
 * - PostgreSQL (when TEST_DATABASE_URL is set): a fresh schema, reached through DATABASE_URL with
 *   that schema as search_path.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, inject } from 'vitest';
import { PgliteSqlClient } from '../../src/adapters/sql/pglite-sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { projectRoot } from '../../src/boot/project-root.js';
import type { StoredSession } from '../../src/domain/session/session.js';
import { childEntry } from '../support/compiled-source.js';
import { openTestPostgres, pgEnabled, type StoreKind, testMigrations } from '../support/databases.js';
// Type-only: brings in the `ProvidedContext` augmentation for `inject`.
import type {} from '../support/global-setup.js';

export const ROOT = projectRoot();

/** A test runs a few commands, each a Node start-up: generous on a loaded machine. */
export const CLI_TEST_TIMEOUT_MS = 90_000;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Written to the command's standard input, which is then closed. */
  input?: string;
  /** Run `node bin/gatehouse.js` (the built command) instead of the TypeScript source. */
  bin?: string;
  /** Node options before the entry (e.g. `--import` of module hooks). */
  nodeArgs?: string[];
}

/** A clean environment: nothing of the test runner's (DATABASE_URL, TEST_DATABASE_URL...) leaks in. */
function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent' };
}

export function runGatehouse(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const entry = options.bin ? [options.bin] : childEntry(ROOT, 'cli/main.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry, ...args], {
      cwd: ROOT,
      env: { ...baseEnv(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {
      // The command may exit before reading its input (a usage error): not the test's concern.
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface CliTarget {
  kind: StoreKind;
  /** DATA_DIR or DATABASE_URL for the command. */
  env: Record<string, string>;
  /** Opens the same database in-process (never while a command runs) and closes it after. */
  withStore<T>(work: (store: SqlStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const templates = new Map<string, Promise<Blob>>();

function template(migrated: boolean): Promise<Blob> | undefined {
  let path: string | undefined;
  try {
    path = inject(migrated ? 'pgliteTemplatePath' : 'pgliteEmptyTemplatePath') || undefined;
  } catch {
    path = undefined;
  }
  if (!path) return undefined;
  let blob = templates.get(path);
  if (!blob) {
    blob = readFile(path).then((bytes) => new Blob([new Uint8Array(bytes)], { type: 'application/x-tar' }));
    templates.set(path, blob);
  }
  return blob;
}

/** A database for the command; `migrated: false` gives an empty one (for `gatehouse migrate`). */
export async function openCliTarget(
  kind: StoreKind,
  options: { migrated?: boolean } = {},
): Promise<CliTarget> {
  const migrated = options.migrated ?? true;
  if (kind === 'postgres') {
    const client = await openTestPostgres({ migrated, poolSize: 2 });
    const store = new SqlStore(client, testMigrations());
    return {
      kind,
      env: { DATABASE_URL: client.connectionString },
      withStore: (work) => work(store),
      close: () => client.close(),
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-cli-'));
  const dataDir = join(dir, 'data');
  const loadDataDir = await template(migrated);
  // Without the global setup's templates, the command itself runs initdb (slow, but correct).
  if (loadDataDir) await (await PgliteSqlClient.open(dataDir, { loadDataDir })).close();
  return {
    kind,
    env: { DATA_DIR: dataDir },
    async withStore(work) {
      const store = new SqlStore(await PgliteSqlClient.open(dataDir), testMigrations());
      try {
        return await work(store);
      } finally {
        await store.close();
      }
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * `describe("<name> [pglite]")`, or `describe.skipIf(!pgEnabled)("<name> [postgres]")`. Each store
 * has a test file of its own (x.pglite.test.ts, x.postgres.test.ts calling one x.suite.ts), so the
 * two run in parallel and each file stays short: every command run pays a Node start-up.
 * Every suite runs on PGlite; on PostgreSQL only the accounts suite, for the command's way to a
 * server (DATABASE_URL) and its session administration there: the commands' SQL is the same on
 * both engines, and the SQL contract suites run it on both.
 */
export function describeCliStore(kind: StoreKind, name: string, body: () => void): void {
  describe.skipIf(kind === 'postgres' && !pgEnabled)(
    `${name} [${kind}]`,
    { timeout: CLI_TEST_TIMEOUT_MS },
    body,
  );
}

/** A unique name per call, so tests sharing one database never collide. */
export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export function sessionFor(userId: string, handle = randomBytes(12).toString('base64url')): StoredSession {
  const now = new Date();
  return {
    tokenHash: randomBytes(32).toString('hex'),
    handle,
    userId,
    method: 'password',
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + 3_600_000),
    clientAddress: '192.0.2.7',
    userAgent: 'cli-test',
    sso: null,
  };
}

export async function countRows(store: SqlStore, table: string): Promise<number> {
  const { rows } = await store.client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]!.n;
}

export const GOOD_PASSWORD = 'a perfectly long passphrase';

/** What `gatehouse provider add` is told in the tests; each list repeats its flag. */
export interface ProviderAddArgs {
  issuer: string;
  clientId: string;
  redirectUris: readonly string[];
  tenants: readonly string[];
  /** Flags after these (`--interpreter`, `--levels`, `--client-secret-stdin`...), as written. */
  more?: readonly string[];
}

/**
 * The command line of `gatehouse provider add ID`, in one place: the tests that register a
 * provider through the command differ only in their values and extra flags.
 */
export function providerAddArgs(id: string, args: ProviderAddArgs): string[] {
  return [
    'provider',
    'add',
    id,
    '--issuer',
    args.issuer,
    '--client-id',
    args.clientId,
    ...args.redirectUris.flatMap((uri) => ['--redirect-uri', uri]),
    ...args.tenants.flatMap((tenant) => ['--tenant', tenant]),
    ...(args.more ?? []),
  ];
}
