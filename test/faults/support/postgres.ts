/**
 * PostgreSQL helpers of the fault tests: a schema of their own (test/support/databases.ts), the
 * connection string a child service uses (directly or through a TcpProxy), and users seeded with
 * real argon2id hashes.
 */
import { Argon2PasswordHasher } from '../../../src/adapters/password/argon2-password-hasher.js';
import { EMPTY_ATTRIBUTES, type User } from '../../../src/domain/user/user.js';
import { repositories, schemaConnectionString, type TestPgSqlClient } from '../../support/databases.js';

export const hasher = new Argon2PasswordHasher();

export function databaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  return url;
}

/** Where the shared PostgreSQL server listens. */
export function databaseTarget(): { host: string; port: number } {
  const url = new URL(databaseUrl());
  return { host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) };
}

/** DATABASE_URL for a child service on `schema`, optionally through a proxy on `proxyPort`. */
export function serviceDatabaseUrl(schema: string, proxyPort?: number): string {
  const url = new URL(databaseUrl());
  if (proxyPort !== undefined) {
    url.hostname = '127.0.0.1';
    url.port = String(proxyPort);
  }
  return schemaConnectionString(url.toString(), schema);
}

export interface SeededUser {
  user: User;
  username: string;
  password: string;
}

/** Creates end users (level 0) with argon2id hashes of their passwords, or with `passwordHash` as given. */
export async function seedUsers(
  db: TestPgSqlClient,
  users: Array<{ username: string; password: string; passwordHash?: string }>,
  now = new Date(),
): Promise<SeededUser[]> {
  const repos = repositories(db);
  const seeded: SeededUser[] = [];
  for (const { username, password, passwordHash } of users) {
    const user = await repos.users.create(
      {
        ...EMPTY_ATTRIBUTES,
        userId: `u-${username}`,
        username,
        userLevel: 0,
        tenantId: null,
        groupId: null,
        backendName: null,
        passwordHash: passwordHash ?? (await hasher.hash(password)),
        mustChangePassword: false,
      },
      now,
    );
    seeded.push({ user, username, password });
  }
  return seeded;
}
