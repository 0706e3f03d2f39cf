import { DomainError } from '../../domain/shared/domain-error.js';
import type { Backend, ProviderAccount, User } from '../../domain/user/user.js';
import type {
  DirectoryRepository,
  Group,
  NewUser,
  Tenant,
  UserRepository,
} from '../../domain/user/user-repository.port.js';
import { canonicalUsername } from '../../domain/user/username.js';
import type { SqlExecutor } from './sql-client.js';
import { sqlErrorCode } from './store-errors.js';
import { USER_COLUMNS, type UserRow, userFromRow } from './user-row.js';

export const SELECT_USER = `SELECT ${USER_COLUMNS} FROM users u LEFT JOIN backends b ON b.name = u.backend_name`;

function translateWriteError(error: unknown, what: string): never {
  const code = sqlErrorCode(error);
  if (code === '23505') throw new DomainError('CONFLICT', `${what} already exists.`, { cause: error });
  if (code === '23503') {
    throw new DomainError('INVALID_REQUEST', `${what} refers to an unknown tenant, group or backend.`, {
      cause: error,
    });
  }
  if (code === '23514' || code === '22001') {
    throw new DomainError('INVALID_REQUEST', `${what} has a value out of range.`, { cause: error });
  }
  throw error;
}

export class SqlUserRepository implements UserRepository {
  constructor(private readonly sql: SqlExecutor) {}

  private async one(where: string, params: unknown[], name: string): Promise<User | null> {
    const { rows } = await this.sql.query<UserRow>(`${SELECT_USER} WHERE ${where}`, params, name);
    return rows[0] ? userFromRow(rows[0]) : null;
  }

  // Matched on the canonical form the domain computes (never SQL's lower()): one account, one key.
  findByUsername(username: string): Promise<User | null> {
    return this.one('u.username_key = $1', [canonicalUsername(username)], 'user_by_username');
  }

  findByGroupAndUsername(groupId: string, username: string): Promise<User | null> {
    return this.one(
      'u.group_id = $1 AND u.username_key = $2',
      [groupId, canonicalUsername(username)],
      'user_by_group_username',
    );
  }

  findByUserId(userId: string): Promise<User | null> {
    return this.one('u.user_id = $1', [userId], 'user_by_id');
  }

  async create(user: NewUser, now: Date): Promise<User> {
    try {
      await this.sql.query(
        `INSERT INTO users (user_id, username, user_level, tenant_id, group_id, backend_name, platform_type,
           first_name, last_name, language, language_code, email_address, access_type, read_only, user_type,
           phone_number, role, is_enterprise, password_hash, password_changed_at, must_change_password, created_at,
           username_key)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23)`,
        [
          user.userId,
          user.username,
          user.userLevel,
          user.tenantId,
          user.groupId,
          user.backendName,
          user.platformType,
          user.firstName,
          user.lastName,
          user.language,
          user.languageCode,
          user.emailAddress,
          user.accessType,
          user.readOnly,
          user.userType,
          user.phoneNumber,
          user.role,
          user.isEnterprise,
          user.passwordHash,
          user.passwordHash ? now : null,
          user.mustChangePassword,
          now,
          canonicalUsername(user.username),
        ],
      );
    } catch (error) {
      translateWriteError(error, `User ${JSON.stringify(user.username)}`);
    }
    const created = await this.findByUserId(user.userId);
    if (!created) throw new Error('user vanished after insert');
    return created;
  }

  async listUserIds(after: string | null, limit: number): Promise<string[]> {
    const { rows } = await this.sql.query<{ user_id: string }>(
      'SELECT user_id FROM users WHERE ($1::text IS NULL OR user_id > $1) ORDER BY user_id LIMIT $2',
      [after, limit],
      'user_ids_page',
    );
    return rows.map((row) => row.user_id);
  }

  // Served by the provider-account index (users_sso_identity, led by sso_provider).
  async listBoundTo(providerId: string, after: string | null, limit: number): Promise<User[]> {
    const { rows } = await this.sql.query<UserRow>(
      `${SELECT_USER} WHERE u.sso_provider = $1 AND u.sso_issuer IS NOT NULL
         AND ($2::text IS NULL OR u.user_id > $2) ORDER BY u.user_id LIMIT $3`,
      [providerId, after, limit],
      'users_bound_to_provider',
    );
    return rows.map(userFromRow);
  }

  async count(): Promise<number> {
    const { rows } = await this.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
    return rows[0]?.n ?? 0;
  }

  async markFirstLogin(userId: string, now: Date): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      'UPDATE users SET first_login_at = $2 WHERE user_id = $1 AND first_login_at IS NULL',
      [userId, now],
      'user_mark_first_login',
    );
    return rowCount === 1;
  }

  async upgradePasswordHash(userId: string, expectedHash: string, newHash: string): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      'UPDATE users SET password_hash = $3 WHERE user_id = $1 AND password_hash = $2',
      [userId, expectedHash, newHash],
      'user_upgrade_hash',
    );
    return rowCount === 1;
  }

  async passwordStillVerified(
    userId: string,
    verifiedHash: string,
    changedAt: Date | null,
  ): Promise<boolean> {
    // A row locked by a password change makes this wait for its commit, then re-check the new row.
    const { rows } = await this.sql.query(
      `SELECT 1 FROM users WHERE user_id = $1
          AND (password_hash = $2 OR password_changed_at IS NOT DISTINCT FROM $3) FOR SHARE`,
      [userId, verifiedHash, changedAt],
      'user_hold_password',
    );
    return rows.length === 1;
  }

  async setPassword(
    userId: string,
    hash: string,
    options: {
      mustChange: boolean;
      now: Date;
      unlessChangedSince?: { hash: string; changedAt: Date | null };
    },
  ): Promise<boolean> {
    const set = `UPDATE users SET password_hash = $2, password_changed_at = $3, must_change_password = $4,
         credentials_expire_at = NULL WHERE user_id = $1`;
    const expected = options.unlessChangedSince;
    // The row lock of the UPDATE serialises concurrent changes; the loser re-reads the winner's row.
    const { rowCount } = expected
      ? await this.sql.query(
          `${set} AND (password_hash = $5 OR password_changed_at IS NOT DISTINCT FROM $6)`,
          [userId, hash, options.now, options.mustChange, expected.hash, expected.changedAt],
          'user_set_password_cas',
        )
      : await this.sql.query(set, [userId, hash, options.now, options.mustChange]);
    return rowCount === 1;
  }

  async expireCredentials(userId: string, at: Date): Promise<void> {
    await this.sql.query('UPDATE users SET credentials_expire_at = $2 WHERE user_id = $1', [userId, at]);
  }

  async setDisabled(userId: string, disabled: boolean): Promise<void> {
    await this.sql.query('UPDATE users SET disabled = $2 WHERE user_id = $1', [userId, disabled]);
  }

  async bindProviderAccount(userId: string, account: ProviderAccount): Promise<'bound' | 'refused'> {
    // The row's lock serialises two first logins of one user; the unique index (users_sso_identity)
    // two users racing for one provider account: the loser's transaction fails and is refused.
    let bound: number;
    try {
      ({ rowCount: bound } = await this.sql.query(
        `UPDATE users SET sso_provider = $4, sso_issuer = $2, sso_subject = $3
          WHERE user_id = $1 AND sso_issuer IS NULL
            AND NOT EXISTS (SELECT 1 FROM users o
                             WHERE o.sso_provider = $4 AND o.sso_issuer = $2 AND o.sso_subject = $3)`,
        [userId, account.issuer, account.subject, account.provider],
        'user_bind_provider_account',
      ));
    } catch (error) {
      if (sqlErrorCode(error) === '23505') return 'refused';
      throw error;
    }
    if (bound === 1) return 'bound';
    const { rowCount } = await this.sql.query(
      'SELECT 1 FROM users WHERE user_id = $1 AND sso_provider = $4 AND sso_issuer = $2 AND sso_subject = $3',
      [userId, account.issuer, account.subject, account.provider],
      'user_provider_account',
    );
    return rowCount === 1 ? 'bound' : 'refused';
  }

  async clearProviderAccount(userId: string): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      'UPDATE users SET sso_provider = NULL, sso_issuer = NULL, sso_subject = NULL WHERE user_id = $1 AND sso_issuer IS NOT NULL',
      [userId],
    );
    return rowCount === 1;
  }
}

export class SqlDirectoryRepository implements DirectoryRepository {
  constructor(private readonly sql: SqlExecutor) {}

  async addTenant(id: string, name: string | null): Promise<void> {
    try {
      await this.sql.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [id, name]);
    } catch (error) {
      translateWriteError(error, `Tenant ${JSON.stringify(id)}`);
    }
  }

  async addGroup(id: string, tenantId: string, name: string | null): Promise<void> {
    try {
      await this.sql.query('INSERT INTO groups (id, tenant_id, name) VALUES ($1, $2, $3)', [
        id,
        tenantId,
        name,
      ]);
    } catch (error) {
      translateWriteError(error, `Group ${JSON.stringify(id)}`);
    }
  }

  async addBackend(backend: { name: string; externalName: string | null }): Promise<void> {
    try {
      await this.sql.query('INSERT INTO backends (name, external_name) VALUES ($1, $2)', [
        backend.name,
        backend.externalName,
      ]);
    } catch (error) {
      translateWriteError(error, `Backend ${JSON.stringify(backend.name)}`);
    }
  }

  async findTenant(id: string): Promise<Tenant | null> {
    const { rows } = await this.sql.query<{ id: string; name: string | null }>(
      'SELECT id, name FROM tenants WHERE id = $1',
      [id],
    );
    return rows[0] ? { id: rows[0].id, name: rows[0].name } : null;
  }

  async findGroup(id: string): Promise<Group | null> {
    const { rows } = await this.sql.query<{ id: string; tenant_id: string; name: string | null }>(
      'SELECT id, tenant_id, name FROM groups WHERE id = $1',
      [id],
    );
    return rows[0] ? { id: rows[0].id, tenantId: rows[0].tenant_id, name: rows[0].name } : null;
  }

  async findBackend(name: string): Promise<Backend | null> {
    const { rows } = await this.sql.query<{ name: string; external_name: string | null }>(
      'SELECT name, external_name FROM backends WHERE name = $1',
      [name],
    );
    return rows[0] ? { name: rows[0].name, externalName: rows[0].external_name } : null;
  }
}
