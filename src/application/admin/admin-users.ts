import { type AuditEvent, auditEvent } from '../../domain/audit/audit-event.js';
import type { UserFactors } from '../../domain/mfa/mfa-factor.js';
import type { RemovedFactors } from '../../domain/mfa/mfa-factor-repository.port.js';
import type { PasswordHasher } from '../../domain/password/password-hasher.port.js';
import type { PasswordPolicy } from '../../domain/password/password-policy.js';
import { hashPassword, normalizePassword } from '../../domain/password/password-text.js';
import { isSessionAlive, type SessionRecord, type SessionTimeouts } from '../../domain/session/session.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { Repositories, Store } from '../../domain/store.port.js';
import type { User } from '../../domain/user/user.js';
import { assertValidNewUser } from '../../domain/user/user-rules.js';
import type { SessionEnding } from '../session-ending.js';
import { createUser, DirectoryLookups, type NewUserInput, notFound } from './directory-writes.js';

export interface AddUserInput extends NewUserInput {
  /** The administrator-chosen password; null creates an account without one (single sign-on only). */
  password: string | null;
}

export interface ListedSession extends SessionRecord {
  /** False once the idle or absolute time-out has passed (the row awaits the purge). */
  alive: boolean;
}

/** A fresh, opaque `user_id` when none is given: 128 bits from the CSPRNG, hex. */
export function generateUserId(random: Random): string {
  return Buffer.from(random.bytes(16)).toString('hex');
}

/** What a password must not be built on: the account's own names (ASVS 6.2.11). */
type AccountWords = {
  username: string;
  firstName?: string | null;
  lastName?: string | null;
  emailAddress?: string | null;
};

/**
 * The account administration behind `gatehouse user ...` and `gatehouse sessions ...`.
 * Passwords set here are the administrator's, not the user's: they pass the service's password
 * policy and are marked to be changed at first login (contract 3a, ASVS 6.4.1).
 */
export class AdminUsers {
  constructor(
    private readonly store: Store,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly ending: SessionEnding,
  ) {}

  async add(input: AddUserInput): Promise<User> {
    const userId = input.userId ?? generateUserId(this.random);
    const candidate = { ...input, userId };
    // Cheap checks first: a refused account costs no hash.
    assertValidNewUser(candidate);
    if (input.password !== null) this.assertPassword(input.password, input);
    // Hashing (argon2id, slow on purpose) happens before the transaction opens.
    const passwordHash = input.password === null ? null : await hashPassword(this.hasher, input.password);
    return this.store.transaction((repositories) =>
      createUser(
        new DirectoryLookups(repositories),
        candidate,
        { passwordHash, mustChangePassword: passwordHash !== null },
        this.clock.now(),
      ),
    );
  }

  /** A new administrator-set password: must be changed at next login; every session of the user ends. */
  async setPassword(username: string, password: string): Promise<{ user: User; sessionsEnded: number }> {
    const user = await this.require(this.store, username);
    this.assertPassword(password, user);
    const hash = await hashPassword(this.hasher, password);
    return this.ending.unit(async (repositories, end) => {
      const current = await this.require(repositories, username);
      await repositories.users.setPassword(current.userId, hash, { mustChange: true, now: this.clock.now() });
      await this.audit(repositories, current, { event: 'password_change' });
      const sessionsEnded = await end.ofUser(current, { reason: 'password_changed', actor: 'administrator' });
      return { user: await this.require(repositories, username), sessionsEnded };
    });
  }

  /** The user's credentials expire now: the next request of any session gets PASSWORD_EXPIRED. */
  async expire(username: string): Promise<User> {
    return this.store.transaction(async (repositories) => {
      const user = await this.require(repositories, username);
      await repositories.users.expireCredentials(user.userId, this.clock.now());
      return this.require(repositories, username);
    });
  }

  /** Disables the account and ends all its sessions at once, in one transaction. */
  async disable(username: string): Promise<{ user: User; sessionsEnded: number }> {
    return this.ending.unit(async (repositories, end) => {
      const user = await this.require(repositories, username);
      await repositories.users.setDisabled(user.userId, true);
      await this.audit(repositories, user, { event: 'user_disabled' });
      const sessionsEnded = await end.ofUser(user, { reason: 'user_disabled' });
      return { user, sessionsEnded };
    });
  }

  /**
   * Forgets the provider account the user is bound to: the next SSO login for this user binds
   * again. For a user whose account at the provider was re-created (a new `sub`) or moved to
   * another provider. The user's sessions made through that provider end with the binding that
   * admitted them: a provider's sessions are found through its bound users (offboarding), so none
   * may outlive its binding. Other sessions stay.
   */
  async resetSso(username: string): Promise<{ user: User; wasBound: boolean; sessionsEnded: number }> {
    return this.ending.unit(async (repositories, end) => {
      const user = await this.require(repositories, username);
      const wasBound = await repositories.users.clearProviderAccount(user.userId);
      if (!wasBound) return { user, wasBound, sessionsEnded: 0 };
      await this.audit(repositories, user, { event: 'sso_binding_reset' });
      const provider = user.ssoIdentity?.provider;
      const sessionsEnded = provider
        ? await end.throughProviderOf(user, provider, { reason: 'sso_binding_reset' })
        : 0;
      return { user, wasBound, sessionsEnded };
    });
  }

  /**
   * Removes every second factor and recovery code of the user (contract 3b, Administration): for a
   * user who lost their authenticator and their codes. Every session of the user ends with them, a
   * session made with a removed factor included (ASVS 7.4.3); the next password login enrols again
   * where MFA_REQUIRED_LEVELS asks for it. Audited `mfa_reset` even when the user had nothing, so an
   * administrator's attempt is on record.
   */
  async resetMfa(username: string): Promise<{ user: User; removed: RemovedFactors; sessionsEnded: number }> {
    return this.ending.unit(async (repositories, end) => {
      const user = await this.require(repositories, username);
      const removed = await repositories.mfa.removeAllFactors(user.userId);
      await this.audit(repositories, user, { event: 'mfa_reset' });
      const sessionsEnded = await end.ofUser(user, { reason: 'factor_changed', actor: 'administrator' });
      return { user, removed, sessionsEnded };
    });
  }

  /** The account and its second factors, for `gatehouse user show` (secrets stay in the store). */
  async show(username: string): Promise<{ user: User; factors: UserFactors }> {
    // Outside a transaction: the SQL adapter reads the three factor tables at once, which a
    // transaction's single connection would have to queue (pg warns of it on PostgreSQL).
    const user = await this.require(this.store, username);
    return { user, factors: await this.store.mfa.factorsOf(user.userId) };
  }

  async enable(username: string): Promise<User> {
    return this.store.transaction(async (repositories) => {
      const user = await this.require(repositories, username);
      await repositories.users.setDisabled(user.userId, false);
      await this.audit(repositories, user, { event: 'user_enabled' });
      return user;
    });
  }

  async listSessions(
    username: string,
    timeouts: SessionTimeouts,
  ): Promise<{ user: User; sessions: ListedSession[] }> {
    const user = await this.require(this.store, username);
    const now = this.clock.now();
    // Dead ones awaiting the purge too, marked: an administrator sees everything the store holds.
    const sessions = await this.store.sessions.listForUser(user.userId);
    return {
      user,
      sessions: sessions.map((session) => ({ ...session, alive: isSessionAlive(session, timeouts, now) })),
    };
  }

  /** Ends every session of the user, or only the one with this handle. Returns how many ended. */
  async revokeSessions(username: string, handle?: string): Promise<{ user: User; sessionsEnded: number }> {
    // The sessions end and the audit record is written together.
    return this.ending.unit(async (repositories, end) => {
      const user = await this.require(repositories, username);
      if (handle === undefined) {
        return { user, sessionsEnded: await end.ofUser(user, { reason: 'administrator' }) };
      }
      if (!(await end.byHandle(user.userId, handle, { reason: 'administrator', user }))) {
        throw notFound(`no session ${JSON.stringify(handle)} of user ${JSON.stringify(user.username)}`);
      }
      return { user, sessionsEnded: 1 };
    });
  }

  /**
   * Ends every session of every user at once (ASVS 7.4.5), with one audit event naming no user.
   * Returns how many ended.
   */
  async revokeAllSessions(): Promise<{ sessionsEnded: number }> {
    return { sessionsEnded: await this.ending.unit((_, end) => end.all({ reason: 'administrator' })) };
  }

  /** An administrator's action on the account, in the transaction that makes it. */
  private audit(
    repositories: Repositories,
    user: User,
    event: Pick<AuditEvent, 'event'> & Partial<AuditEvent>,
  ): Promise<void> {
    return repositories.audit.record(
      auditEvent({
        occurredAt: this.clock.now(),
        actor: 'administrator',
        userId: user.userId,
        username: user.username,
        ...event,
      }),
    );
  }

  private assertPassword(password: string, who: AccountWords): void {
    try {
      this.policy.assertAcceptable(normalizePassword(password), {
        username: who.username,
        otherWords: [who.firstName, who.lastName, who.emailAddress],
      });
    } catch (error) {
      if (error instanceof DomainError && error.errors) {
        // The policy speaks of `new_password` (the HTTP field); here it is simply the password.
        throw new DomainError(error.code, 'The password does not meet the password policy.', {
          errors: error.errors.map((entry) => ({ ...entry, path: 'password' })),
        });
      }
      throw error;
    }
  }

  private async require(repositories: Pick<Repositories, 'users'>, username: string): Promise<User> {
    const user = await repositories.users.findByUsername(username);
    if (!user) throw notFound(`no user ${JSON.stringify(username)}`);
    return user;
  }
}
