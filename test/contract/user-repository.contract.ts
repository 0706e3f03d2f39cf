import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { EMPTY_ATTRIBUTES, USER_LEVELS } from '../../src/domain/user/user.js';
import type {
  DirectoryRepository,
  NewUser,
  UserRepository,
} from '../../src/domain/user/user-repository.port.js';

export interface UserStore {
  users: UserRepository;
  directory: DirectoryRepository;
  close(): Promise<void>;
}

export const T0 = new Date('2030-01-01T00:00:00.000Z');

export function at(seconds: number, base: Date = T0): Date {
  return new Date(base.getTime() + seconds * 1000);
}

/** A valid NewUser with a unique id and username; `overrides` wins. */
export function newUser(overrides: Partial<NewUser> = {}): NewUser {
  const suffix = randomBytes(6).toString('hex');
  return {
    ...EMPTY_ATTRIBUTES,
    userId: `u-${suffix}`,
    username: `user-${suffix}`,
    userLevel: USER_LEVELS.END_USER,
    tenantId: null,
    groupId: null,
    backendName: null,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA',
    mustChangePassword: false,
    ...overrides,
  };
}

async function expectDomainError(promise: Promise<unknown>, code: DomainError['code']): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe(code);
}

/** The behaviour every UserRepository (with its DirectoryRepository) must show. `open` gives an empty store. */
export function userRepositoryContract(open: () => Promise<UserStore>): void {
  describe('UserRepository contract', () => {
    let store: UserStore;
    let users: UserRepository;
    let directory: DirectoryRepository;

    beforeEach(async () => {
      store = await open();
      ({ users, directory } = store);
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates a user and finds it by id and by username in any case', async () => {
      await directory.addTenant('tenant-1', 'Tenant One');
      await directory.addGroup('group-1', 'tenant-1', 'Group One');
      await directory.addBackend({ name: 'backend-1', externalName: 'https://backend-1.example' });
      const input = newUser({
        userId: 'user-id-1',
        username: 'Alice.Smith',
        userLevel: USER_LEVELS.GROUP_ADMIN,
        tenantId: 'tenant-1',
        groupId: 'group-1',
        backendName: 'backend-1',
        platformType: 'web',
        firstName: 'Alice',
        lastName: 'Smith',
        language: 'English',
        languageCode: 'en',
        emailAddress: 'alice@example.com',
        accessType: 3,
        readOnly: false,
        userType: 'staff',
        phoneNumber: '+1 555 0100',
        role: 'manager',
        isEnterprise: true,
        mustChangePassword: true,
      });
      const created = await users.create(input, T0);
      const expected = {
        userId: 'user-id-1',
        username: 'Alice.Smith',
        userLevel: USER_LEVELS.GROUP_ADMIN,
        tenantId: 'tenant-1',
        groupId: 'group-1',
        backend: { name: 'backend-1', externalName: 'https://backend-1.example' },
        platformType: 'web',
        firstName: 'Alice',
        lastName: 'Smith',
        language: 'English',
        languageCode: 'en',
        emailAddress: 'alice@example.com',
        accessType: 3,
        readOnly: false,
        userType: 'staff',
        phoneNumber: '+1 555 0100',
        role: 'manager',
        isEnterprise: true,
        passwordHash: input.passwordHash,
        passwordChangedAt: T0,
        mustChangePassword: true,
        credentialsExpireAt: null,
        firstLoginAt: null,
        disabled: false,
        ssoIdentity: null,
        createdAt: T0,
      };
      expect(created).toEqual(expected);
      expect(await users.findByUserId('user-id-1')).toEqual(expected);
      for (const spelling of ['Alice.Smith', 'alice.smith', 'ALICE.SMITH', 'aLiCe.SmItH']) {
        expect(await users.findByUsername(spelling)).toEqual(expected);
      }
      expect(await users.findByUsername('alice.smit')).toBeNull();
      expect(await users.findByUserId('USER-ID-1')).toBeNull();
      expect(await users.count()).toBe(1);
    });

    it('stores a user without a password or attributes, with null password date', async () => {
      const created = await users.create(newUser({ username: 'nopass', passwordHash: null }), T0);
      expect(created.passwordHash).toBeNull();
      expect(created.passwordChangedAt).toBeNull();
      expect(created.backend).toBeNull();
      expect(created.tenantId).toBeNull();
      expect(created.readOnly).toBeNull();
      expect(created.accessType).toBeNull();
    });

    it('refuses a duplicate username in any case, and a duplicate user id, with CONFLICT', async () => {
      await users.create(newUser({ userId: 'dup-1', username: 'Bob' }), T0);
      await expectDomainError(users.create(newUser({ username: 'Bob' }), T0), 'CONFLICT');
      await expectDomainError(users.create(newUser({ username: 'bob' }), T0), 'CONFLICT');
      await expectDomainError(users.create(newUser({ username: 'BOB' }), T0), 'CONFLICT');
      await expectDomainError(users.create(newUser({ userId: 'dup-1', username: 'carol' }), T0), 'CONFLICT');
      expect(await users.count()).toBe(1);
    });

    it('refuses an unknown tenant, group or backend with INVALID_REQUEST', async () => {
      await directory.addTenant('tenant-1', null);
      await directory.addGroup('group-1', 'tenant-1', null);
      await expectDomainError(users.create(newUser({ tenantId: 'no-such-tenant' }), T0), 'INVALID_REQUEST');
      await expectDomainError(users.create(newUser({ groupId: 'no-such-group' }), T0), 'INVALID_REQUEST');
      await expectDomainError(
        users.create(newUser({ backendName: 'no-such-backend' }), T0),
        'INVALID_REQUEST',
      );
      expect(await users.count()).toBe(0);
      await users.create(newUser({ tenantId: 'tenant-1', groupId: 'group-1' }), T0);
      expect(await users.count()).toBe(1);
    });

    it('refuses an out-of-range value with INVALID_REQUEST', async () => {
      await expectDomainError(users.create(newUser({ username: 'x'.repeat(201) }), T0), 'INVALID_REQUEST');
      await expectDomainError(users.create(newUser({ username: '' }), T0), 'INVALID_REQUEST');
      await expectDomainError(users.create(newUser({ accessType: 2 }), T0), 'INVALID_REQUEST');
      expect(await users.count()).toBe(0);
    });

    it('directory: refuses duplicates with CONFLICT and a group of an unknown tenant with INVALID_REQUEST', async () => {
      await directory.addTenant('tenant-1', null);
      await expectDomainError(directory.addTenant('tenant-1', 'again'), 'CONFLICT');
      await directory.addGroup('group-1', 'tenant-1', null);
      await expectDomainError(directory.addGroup('group-1', 'tenant-1', null), 'CONFLICT');
      await expectDomainError(directory.addGroup('group-2', 'no-such-tenant', null), 'INVALID_REQUEST');
      await directory.addBackend({ name: 'backend-1', externalName: null });
      await expectDomainError(directory.addBackend({ name: 'backend-1', externalName: 'x' }), 'CONFLICT');
    });

    it('finds by group and username (case-insensitive), only in that group', async () => {
      await directory.addTenant('tenant-1', null);
      await directory.addGroup('group-1', 'tenant-1', null);
      await directory.addGroup('group-2', 'tenant-1', null);
      const dana = await users.create(
        newUser({ username: 'Dana', groupId: 'group-1', tenantId: 'tenant-1' }),
        T0,
      );
      await users.create(newUser({ username: 'erin', groupId: 'group-2' }), T0);
      await users.create(newUser({ username: 'frank' }), T0);
      expect(await users.findByGroupAndUsername('group-1', 'dana')).toEqual(dana);
      expect(await users.findByGroupAndUsername('group-1', 'DANA')).toEqual(dana);
      expect(await users.findByGroupAndUsername('group-2', 'dana')).toBeNull();
      expect(await users.findByGroupAndUsername('group-1', 'erin')).toBeNull();
      expect((await users.findByGroupAndUsername('group-2', 'Erin'))?.username).toBe('erin');
      expect(await users.findByGroupAndUsername('group-1', 'frank')).toBeNull();
      expect(await users.findByGroupAndUsername('no-such-group', 'dana')).toBeNull();
    });

    it('joins the backend and its external name', async () => {
      await directory.addBackend({ name: 'with-external', externalName: 'https://app.example' });
      await directory.addBackend({ name: 'without-external', externalName: null });
      const a = await users.create(newUser({ backendName: 'with-external' }), T0);
      const b = await users.create(newUser({ backendName: 'without-external' }), T0);
      const c = await users.create(newUser({ backendName: null }), T0);
      expect(a.backend).toEqual({ name: 'with-external', externalName: 'https://app.example' });
      expect(b.backend).toEqual({ name: 'without-external', externalName: null });
      expect(c.backend).toBeNull();
      expect((await users.findByUsername(a.username))?.backend).toEqual(a.backend);
      expect((await users.findByUserId(b.userId))?.backend).toEqual(b.backend);
    });

    it('marks the first login once: true, then false, keeping the first time', async () => {
      const user = await users.create(newUser(), T0);
      expect(await users.markFirstLogin(user.userId, at(10))).toBe(true);
      expect(await users.markFirstLogin(user.userId, at(20))).toBe(false);
      expect((await users.findByUserId(user.userId))?.firstLoginAt).toEqual(at(10));
      expect(await users.markFirstLogin('no-such-user', at(10))).toBe(false);
    });

    it('marks the first login true for exactly one of 20 concurrent calls', async () => {
      const user = await users.create(newUser(), T0);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => users.markFirstLogin(user.userId, at(100 + i))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await users.findByUserId(user.userId))?.firstLoginAt).toEqual(at(100 + winner));
    });

    it('upgrades a password hash only while it is still the expected one (compare-and-set)', async () => {
      const user = await users.create(newUser({ passwordHash: 'old-hash' }), T0);
      expect(await users.upgradePasswordHash(user.userId, 'wrong-hash', 'new-hash')).toBe(false);
      expect((await users.findByUserId(user.userId))?.passwordHash).toBe('old-hash');
      expect(await users.upgradePasswordHash(user.userId, 'old-hash', 'upgraded-hash')).toBe(true);
      expect((await users.findByUserId(user.userId))?.passwordHash).toBe('upgraded-hash');

      // A password change lands between the login's read and its re-hash: the re-hash loses.
      await users.setPassword(user.userId, 'changed-hash', { mustChange: false, now: at(60) });
      expect(await users.upgradePasswordHash(user.userId, 'upgraded-hash', 'rehash-of-old')).toBe(false);
      expect((await users.findByUserId(user.userId))?.passwordHash).toBe('changed-hash');
      expect(await users.upgradePasswordHash('no-such-user', 'changed-hash', 'x')).toBe(false);
    });

    it('sets a password: hash, change time, must-change flag; clears an explicit expiry', async () => {
      const user = await users.create(newUser({ passwordHash: 'old-hash', mustChangePassword: true }), T0);
      await users.expireCredentials(user.userId, at(3600));
      expect((await users.findByUserId(user.userId))?.credentialsExpireAt).toEqual(at(3600));

      await users.setPassword(user.userId, 'new-hash', { mustChange: false, now: at(120) });
      const after = await users.findByUserId(user.userId);
      expect(after?.passwordHash).toBe('new-hash');
      expect(after?.passwordChangedAt).toEqual(at(120));
      expect(after?.mustChangePassword).toBe(false);
      expect(after?.credentialsExpireAt).toBeNull();

      await users.setPassword(user.userId, 'admin-hash', { mustChange: true, now: at(240) });
      const reset = await users.findByUserId(user.userId);
      expect(reset?.passwordHash).toBe('admin-hash');
      expect(reset?.passwordChangedAt).toEqual(at(240));
      expect(reset?.mustChangePassword).toBe(true);
    });

    it('disables and re-enables a user', async () => {
      const user = await users.create(newUser(), T0);
      const other = await users.create(newUser(), T0);
      expect(user.disabled).toBe(false);
      await users.setDisabled(user.userId, true);
      expect((await users.findByUserId(user.userId))?.disabled).toBe(true);
      expect((await users.findByUsername(user.username))?.disabled).toBe(true);
      expect((await users.findByUserId(other.userId))?.disabled).toBe(false);
      await users.setDisabled(user.userId, false);
      expect((await users.findByUserId(user.userId))?.disabled).toBe(false);
    });

    it('lists the users bound to a provider, by user id, in keyset pages; an unbound user is not listed', async () => {
      const bind = (userId: string, provider: string) =>
        users.bindProviderAccount(userId, {
          provider,
          issuer: 'https://idp.example',
          subject: `sub-${userId}`,
        });
      for (const id of ['u-d', 'u-a', 'u-c', 'u-b', 'u-e']) await users.create(newUser({ userId: id }), T0);
      for (const id of ['u-d', 'u-a', 'u-b']) expect(await bind(id, 'acme')).toBe('bound');
      expect(await bind('u-c', 'globex')).toBe('bound');
      // A binding reset: no longer listed.
      await users.clearProviderAccount('u-b');
      const first = await users.listBoundTo('acme', null, 2);
      expect(first.map((user) => user.userId)).toEqual(['u-a', 'u-d']);
      expect(first[0]?.ssoIdentity).toMatchObject({ provider: 'acme' });
      expect(await users.listBoundTo('acme', 'u-a', 2)).toMatchObject([{ userId: 'u-d' }]);
      expect(await users.listBoundTo('acme', 'u-d', 2)).toEqual([]);
      expect((await users.listBoundTo('globex', null, 10)).map((user) => user.userId)).toEqual(['u-c']);
      expect(await users.listBoundTo('initech', null, 10)).toEqual([]);
    });

    it('counts users', async () => {
      expect(await users.count()).toBe(0);
      await Promise.all(Array.from({ length: 5 }, () => users.create(newUser(), T0)));
      expect(await users.count()).toBe(5);
    });
  });
}
