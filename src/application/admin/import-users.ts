import type { PasswordHasher } from '../../domain/password/password-hasher.port.js';
import { hashPassword } from '../../domain/password/password-text.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { Store } from '../../domain/store.port.js';
import { identifierViolation, newUserViolations } from '../../domain/user/user-rules.js';
import { canonicalUsername } from '../../domain/user/username.js';
import { generateUserId } from './admin-users.js';
import {
  createBackend,
  createGroup,
  createTenant,
  createUser,
  DirectoryLookups,
  invalid,
  type NewUserInput,
} from './directory-writes.js';

/** One line of an import file (contract section 8), already parsed; `line` is 1-based. */
export type ImportRecord =
  | { kind: 'tenant'; line: number; id: string; name: string | null }
  | { kind: 'backend'; line: number; name: string; externalName: string | null }
  | { kind: 'group'; line: number; id: string; tenantId: string; name: string | null }
  | ImportUserRecord;

export interface ImportUserRecord extends NewUserInput {
  kind: 'user';
  line: number;
  /** The user's own password, in the clear; hashed (argon2id) on import. */
  password: string | null;
  /** A hash from the previous system, kept as is and upgraded at the next successful login. */
  passwordHash: string | null;
  mustChangePassword: boolean;
  credentialsExpireAt: Date | null;
  disabled: boolean;
}

export interface ImportCounts {
  tenants: number;
  backends: number;
  groups: number;
  users: number;
}

export interface ImportOptions {
  /** Plain passwords hashed at once (argon2id takes ~19 MiB and tens of ms each). Default 4. */
  hashConcurrency?: number;
}

/** Longest plain password imported: what the login route accepts, so every imported user can log in. */
export const IMPORTED_PASSWORD_MAX_LENGTH = 4096;

/** The order records are written in, whatever their order in the file: references come first. */
const KIND_ORDER = { tenant: 0, backend: 1, group: 2, user: 3 } as const;

/** Prefixes the message with the line, keeping the code: `line 7: group_id: unknown group "g9"`. */
export function atLine(line: number, error: unknown): DomainError {
  if (isDomainError(error)) {
    return new DomainError(error.code, `line ${line}: ${error.message}`, {
      cause: error,
      ...(error.errors ? { errors: error.errors } : {}),
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DomainError('INTERNAL_ERROR', `line ${line}: ${message}`, { cause: error });
}

/**
 * `gatehouse import FILE.jsonl`: tenants, backends, groups and users, all or nothing.
 *
 * 1. Every record is checked on its own first (level rules, hash formats, duplicates within the
 *    file), so a bad file fails before any slow work.
 * 2. Plain passwords are hashed outside the transaction, a few at a time: argon2id is slow on
 *    purpose and a transaction must not stay open (holding locks) meanwhile.
 * 3. One transaction writes everything, references first; the first refusal rolls it all back and
 *    names its line.
 *
 * Imported passwords are the users' own (contract 8): they are NOT checked against the password
 * policy (a user whose old system allowed a shorter password keeps it and may log in with it;
 * the policy applies when they next change it) and are not marked to be changed unless the line
 * says `"must_change_password": true`. Only an empty or over-long plain password is refused,
 * since nobody could log in with it.
 */
export class ImportUsers {
  private readonly hashConcurrency: number;

  constructor(
    private readonly store: Store,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly random: Random,
    options: ImportOptions = {},
  ) {
    this.hashConcurrency = Math.max(1, Math.floor(options.hashConcurrency ?? 4));
  }

  async execute(records: readonly ImportRecord[]): Promise<ImportCounts> {
    this.check(records);
    const hashes = await this.hashPlainPasswords(records);
    const ordered = [...records].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.line - b.line);
    const counts: ImportCounts = { tenants: 0, backends: 0, groups: 0, users: 0 };
    if (ordered.length === 0) return counts;
    const now = this.clock.now();

    await this.store.transaction(async (repositories) => {
      const lookups = new DirectoryLookups(repositories);
      for (const record of ordered) {
        try {
          switch (record.kind) {
            case 'tenant':
              await createTenant(lookups, { id: record.id, name: record.name });
              counts.tenants += 1;
              break;
            case 'backend':
              await createBackend(lookups, { name: record.name, externalName: record.externalName });
              counts.backends += 1;
              break;
            case 'group':
              await createGroup(lookups, { id: record.id, tenantId: record.tenantId, name: record.name });
              counts.groups += 1;
              break;
            case 'user': {
              const passwordHash = record.password !== null ? hashes.get(record.line)! : record.passwordHash;
              const user = await createUser(
                lookups,
                { ...record, userId: record.userId ?? generateUserId(this.random) },
                { passwordHash, mustChangePassword: record.mustChangePassword },
                now,
              );
              if (record.credentialsExpireAt) {
                await repositories.users.expireCredentials(user.userId, record.credentialsExpireAt);
              }
              if (record.disabled) await repositories.users.setDisabled(user.userId, true);
              counts.users += 1;
              break;
            }
          }
        } catch (error) {
          throw atLine(record.line, error);
        }
      }
    });
    return counts;
  }

  /** Checks that need no store: each record alone, then duplicates across the file. */
  private check(records: readonly ImportRecord[]): void {
    const seen = new Map<string, number>();
    const once = (line: number, path: string, key: string, shown: string) => {
      const first = seen.get(key);
      if (first !== undefined) {
        throw atLine(line, invalid(path, `${shown} appears twice in the file (first on line ${first})`));
      }
      seen.set(key, line);
    };
    for (const record of records) {
      const fail = (path: string, message: string) => atLine(record.line, invalid(path, message));
      switch (record.kind) {
        case 'tenant':
          this.identifier(record.line, 'id', record.id);
          once(record.line, 'id', `tenant:${record.id}`, `tenant ${JSON.stringify(record.id)}`);
          break;
        case 'backend':
          this.identifier(record.line, 'name', record.name);
          once(record.line, 'name', `backend:${record.name}`, `backend ${JSON.stringify(record.name)}`);
          break;
        case 'group':
          this.identifier(record.line, 'id', record.id);
          this.identifier(record.line, 'tenant_id', record.tenantId);
          once(record.line, 'id', `group:${record.id}`, `group ${JSON.stringify(record.id)}`);
          break;
        case 'user': {
          const [violation] = newUserViolations(record);
          if (violation) throw fail(violation.path, violation.message);
          if (record.password !== null && record.passwordHash !== null) {
            throw fail('password', 'give either password or password_hash, not both');
          }
          if (record.password !== null) {
            if (record.password.length === 0) throw fail('password', 'must not be empty');
            if ([...record.password].length > IMPORTED_PASSWORD_MAX_LENGTH) {
              throw fail('password', `must have at most ${IMPORTED_PASSWORD_MAX_LENGTH} characters`);
            }
          }
          if (record.passwordHash !== null && !this.hasher.isSupportedHash(record.passwordHash)) {
            throw fail(
              'password_hash',
              'not a supported hash (argon2id PHC string, Django pbkdf2_sha256$..., bcrypt $2a$/$2b$), or its cost ' +
                'is beyond the bounds (argon2id m <= 64 MiB, t <= 10, p <= 4; pbkdf2 <= 1,500,000 iterations; bcrypt cost <= 14)',
            );
          }
          once(
            record.line,
            'username',
            `user:${canonicalUsername(record.username)}`,
            `username ${JSON.stringify(record.username)}`,
          );
          if (record.userId !== null) {
            once(
              record.line,
              'user_id',
              `user_id:${record.userId}`,
              `user_id ${JSON.stringify(record.userId)}`,
            );
          }
          break;
        }
      }
    }
  }

  private identifier(line: number, path: string, value: string): void {
    const violation = identifierViolation(path, value);
    if (violation) throw atLine(line, invalid(violation.path, violation.message));
  }

  /** Hashes every plain password, `hashConcurrency` at a time; keyed by line. */
  private async hashPlainPasswords(records: readonly ImportRecord[]): Promise<Map<number, string>> {
    const pending = records.filter(
      (record): record is ImportUserRecord => record.kind === 'user' && record.password !== null,
    );
    const hashes = new Map<number, string>();
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        const record = pending[next++]!;
        hashes.set(record.line, await hashPassword(this.hasher, record.password!));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.hashConcurrency, pending.length) }, worker));
    return hashes;
  }
}
