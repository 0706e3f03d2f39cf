/**
 * Seeds the benchmark's users through the real import path: a JSONL file in the format of contract
 * section 8, loaded with `gatehouse import FILE` (the built CLI, in a child process, before the
 * service starts: the embedded database is single-process).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hash } from '@node-rs/argon2';

const run = promisify(execFile);

export const BENCH_TENANT = 't-bench';
export const BENCH_GROUP = 'g-bench';
export const BENCH_BACKEND = 'be-bench';
export const BENCH_PASSWORD = 'bench-password-0123456789';
export const WRONG_PASSWORD = 'not-the-password-9876543210';

export const passwordUser = (index: number) => `user-${String(index).padStart(5, '0')}`;
export const ssoUser = (index: number) => `sso-${String(index).padStart(5, '0')}`;
/** Password users the two-step login phase enrols in TOTP (through the API) before it runs. */
export const totpUser = (index: number) => `totp-${String(index).padStart(5, '0')}`;

export interface SeedPlan {
  passwordUsers: number;
  ssoUsers: number;
  /** Password users kept apart for the two-step login phase (they get a TOTP factor there). */
  totpUsers?: number;
  /** SSO_USER_LEVELS of the service (the SSO users get the first). */
  ssoLevel: number;
}

/**
 * One argon2id hash (the service's default parameters) shared by every user, so seeding costs one
 * hash instead of one per user; each login still verifies it in full.
 */
export async function seedLines(plan: SeedPlan): Promise<string[]> {
  const passwordHash = await hash(BENCH_PASSWORD, {
    algorithm: 2,
    version: 1,
    memoryCost: 19_456,
    timeCost: 2,
    parallelism: 1,
  });
  const lines: object[] = [
    { kind: 'tenant', id: BENCH_TENANT, name: 'Bench' },
    { kind: 'backend', name: BENCH_BACKEND, external_name: 'Bench Server' },
    { kind: 'group', id: BENCH_GROUP, tenant_id: BENCH_TENANT, name: 'Bench' },
  ];
  const user = (username: string, level: number) => ({
    kind: 'user',
    username,
    user_level: level,
    tenant_id: BENCH_TENANT,
    group_id: BENCH_GROUP,
    user_id: `u-${username}`,
    backend: BENCH_BACKEND,
    first_name: 'Bench',
    last_name: username,
    emailAddress: `${username}@example.com`,
    phoneNumber: '+33 1 00 00 00 00',
    password_hash: passwordHash,
  });
  for (let i = 0; i < plan.passwordUsers; i++) lines.push(user(passwordUser(i), 0));
  for (let i = 0; i < plan.ssoUsers; i++) lines.push(user(ssoUser(i), plan.ssoLevel));
  for (let i = 0; i < (plan.totpUsers ?? 0); i++) lines.push(user(totpUser(i), 0));
  return lines.map((line) => JSON.stringify(line));
}

export interface SeedResult {
  method: string;
  users: number;
  ms: number;
}

/** The CLI entry point of a built checkout, or null while the CLI is not built. */
export function cliEntry(root: string): string | null {
  if (!existsSync(join(root, 'dist/src/cli/main.js'))) return null;
  return existsSync(join(root, 'bin/gatehouse.js'))
    ? join(root, 'bin/gatehouse.js')
    : join(root, 'dist/src/cli/main.js');
}

export async function seed(options: {
  root: string;
  dir: string;
  env: Record<string, string>;
  plan: SeedPlan;
}): Promise<SeedResult> {
  const lines = await seedLines(options.plan);
  const file = join(options.dir, 'bench-users.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  const users = options.plan.passwordUsers + options.plan.ssoUsers + (options.plan.totpUsers ?? 0);
  const entry = cliEntry(options.root);
  const started = performance.now();
  if (!entry) throw new Error('gatehouse import is not built: run npm run build (dist/src/cli/main.js)');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'warn',
    BOOTSTRAP_ADMIN: 'false',
    ...options.env,
  };
  try {
    await run(process.execPath, [entry, 'import', file], { cwd: options.root, env, maxBuffer: 16 << 20 });
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(
      `gatehouse import failed: ${failure.message}\n${failure.stderr ?? ''}${failure.stdout ?? ''}`.slice(
        0,
        4000,
      ),
    );
  }
  return {
    method: `node ${entry.slice(options.root.length + 1)} import`,
    users,
    ms: Math.round(performance.now() - started),
  };
}
