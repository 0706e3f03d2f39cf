import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionRecord, SsoSessionData, StoredSession } from '../../src/domain/session/session.js';
import type { SessionLookup } from '../../src/domain/session/session-lookup.port.js';
import type { SessionRepository } from '../../src/domain/session/session-repository.port.js';
import type { User } from '../../src/domain/user/user.js';
import type { DirectoryRepository, UserRepository } from '../../src/domain/user/user-repository.port.js';
import { at, newUser, T0 } from './user-repository.contract.js';

export interface SessionStore extends SessionLookup {
  sessions: SessionRepository;
  users: UserRepository;
  directory: DirectoryRepository;
  close(): Promise<void>;
}

const HOUR_S = 3600;

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A password session created at `createdAt`, last seen then, expiring 12 h later. */
export function newSession(userId: string, overrides: Partial<StoredSession> = {}): StoredSession {
  const createdAt = overrides.createdAt ?? T0;
  return {
    tokenHash: hex(32),
    handle: hex(16),
    userId,
    method: 'password',
    createdAt,
    lastSeenAt: createdAt,
    expiresAt: at(12 * HOUR_S, createdAt),
    clientAddress: '192.0.2.10',
    userAgent: 'Mozilla/5.0 (contract test)',
    sso: null,
    ...overrides,
  };
}

/** What a lookup or a list returns: the session without the provider's tokens. */
function withoutProviderTokens(session: StoredSession): SessionRecord {
  if (!session.sso) return { ...session, sso: null };
  const { issuer, subject, sid } = session.sso;
  return { ...session, sso: { issuer, subject, sid } };
}

function ssoData(overrides: Partial<SsoSessionData> = {}): SsoSessionData {
  return {
    issuer: 'https://idp.example',
    subject: `sub-${hex(4)}`,
    sid: `sid-${hex(4)}`,
    idToken: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
    accessTokenSealed: 'v1.sealed-access',
    refreshTokenSealed: 'v1.sealed-refresh',
    ...overrides,
  };
}

/** The behaviour every SessionRepository must show. `open` gives an empty store. */
export function sessionRepositoryContract(open: () => Promise<SessionStore>): void {
  describe('SessionRepository contract', () => {
    let store: SessionStore;
    let sessions: SessionRepository;
    let alice: User;
    let bob: User;

    beforeEach(async () => {
      store = await open();
      sessions = store.sessions;
      await store.directory.addBackend({ name: 'backend-1', externalName: 'https://app.example' });
      alice = await store.users.create(newUser({ username: 'Alice', backendName: 'backend-1' }), T0);
      bob = await store.users.create(newUser({ username: 'bob' }), T0);
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates a session and finds it by token hash, alone or with its user and backend', async () => {
      const session = newSession(alice.userId);
      await sessions.create(session);
      expect(await sessions.findByTokenHash(session.tokenHash)).toEqual(session);
      expect(await sessions.findByTokenHash(hex(32))).toBeNull();
      const found = await store.findSessionWithUser(session.tokenHash);
      expect(found).toEqual({ session, user: alice });
      expect(found?.user.backend).toEqual({ name: 'backend-1', externalName: 'https://app.example' });
      expect(found?.session.sso).toBeNull();
      expect(await store.findSessionWithUser(hex(32))).toBeNull();
    });

    it('answers many concurrent lookups each with its own session (known, unknown, repeated)', async () => {
      const created = [newSession(alice.userId), newSession(bob.userId), newSession(alice.userId)];
      for (const session of created) await sessions.create(session);
      const unknown = hex(32);
      const asked = [...created, ...created].map((session) => session.tokenHash).concat(unknown);
      const found = await Promise.all(asked.map((tokenHash) => store.findSessionWithUser(tokenHash)));
      expect(found.map((item) => item?.session.tokenHash ?? null)).toEqual(
        asked.map((tokenHash) => (tokenHash === unknown ? null : tokenHash)),
      );
      expect(found.map((item) => item?.user.userId ?? null)).toEqual(
        asked.map((tokenHash) => created.find((session) => session.tokenHash === tokenHash)?.userId ?? null),
      );
    });

    it('a lookup asked for after a session ended never finds it, even among concurrent lookups', async () => {
      const ending = newSession(alice.userId);
      const staying = newSession(alice.userId);
      await sessions.create(ending);
      await sessions.create(staying);
      expect(await store.findSessionWithUser(ending.tokenHash)).not.toBeNull();
      await sessions.deleteByTokenHash(ending.tokenHash);
      const [ended, kept] = await Promise.all([
        store.findSessionWithUser(ending.tokenHash),
        store.findSessionWithUser(staying.tokenHash),
      ]);
      expect(ended).toBeNull();
      expect(kept?.session).toEqual(staying);
    });

    it('stores null client details', async () => {
      const session = newSession(bob.userId, { clientAddress: null, userAgent: null });
      await sessions.create(session);
      expect((await store.findSessionWithUser(session.tokenHash))?.session).toEqual(session);
    });

    it('round-trips the SSO fields', async () => {
      const full = newSession(alice.userId, { method: 'sso', sso: ssoData() });
      const minimal = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ sid: null, idToken: null, accessTokenSealed: null, refreshTokenSealed: null }),
      });
      await sessions.create(full);
      await sessions.create(minimal);
      expect((await store.findSessionWithUser(full.tokenHash))?.session).toEqual(withoutProviderTokens(full));
      expect((await store.findSessionWithUser(minimal.tokenHash))?.session).toEqual(
        withoutProviderTokens(minimal),
      );
      expect(await sessions.deleteByTokenHash(full.tokenHash)).toEqual(full);
      expect(await sessions.deleteByTokenHash(minimal.tokenHash)).toEqual(minimal);
    });

    it('reads the provider tokens only when a session ends, never in a lookup or a list (issue 14, finding 9)', async () => {
      const big = 'x'.repeat(200_000);
      const session = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ idToken: big, accessTokenSealed: big, refreshTokenSealed: big }),
      });
      await sessions.create(session);
      const found = (await store.findSessionWithUser(session.tokenHash))!.session;
      expect(JSON.stringify(found).length).toBeLessThan(2000);
      const [listed] = await sessions.listForUser(alice.userId, { limit: 10 });
      expect(JSON.stringify(listed).length).toBeLessThan(2000);
      expect((await sessions.deleteByTokenHash(session.tokenHash))?.sso?.refreshTokenSealed).toBe(big);
    });

    it('returns the current user state with the session (disabled users included)', async () => {
      const session = newSession(alice.userId);
      await sessions.create(session);
      await store.users.setDisabled(alice.userId, true);
      const found = await store.findSessionWithUser(session.tokenHash);
      expect(found?.user.disabled).toBe(true);
      expect(found?.user.userId).toBe(alice.userId);
    });

    it('touch only moves last-seen forward', async () => {
      const session = newSession(alice.userId);
      await sessions.create(session);
      await sessions.touch(session.tokenHash, at(300));
      expect((await store.findSessionWithUser(session.tokenHash))?.session.lastSeenAt).toEqual(at(300));
      await sessions.touch(session.tokenHash, at(120));
      expect((await store.findSessionWithUser(session.tokenHash))?.session.lastSeenAt).toEqual(at(300));
      await sessions.touch(session.tokenHash, at(300));
      expect((await store.findSessionWithUser(session.tokenHash))?.session.lastSeenAt).toEqual(at(300));
      await sessions.touch(session.tokenHash, at(301));
      const after = (await store.findSessionWithUser(session.tokenHash))?.session;
      expect(after?.lastSeenAt).toEqual(at(301));
      expect(after?.expiresAt).toEqual(session.expiresAt);
      await expect(sessions.touch(hex(32), at(400))).resolves.toBeUndefined();
    });

    it('deletes by token hash: returns the row, then null', async () => {
      const session = newSession(alice.userId, { method: 'sso', sso: ssoData() });
      const other = newSession(alice.userId);
      await sessions.create(session);
      await sessions.create(other);
      expect(await sessions.deleteByTokenHash(session.tokenHash)).toEqual(session);
      expect(await sessions.deleteByTokenHash(session.tokenHash)).toBeNull();
      expect(await store.findSessionWithUser(session.tokenHash)).toBeNull();
      expect(await store.findSessionWithUser(other.tokenHash)).not.toBeNull();
    });

    it('deletes all sessions of a user, optionally except one, leaving other users alone', async () => {
      const a1 = newSession(alice.userId);
      const a2 = newSession(alice.userId);
      const a3 = newSession(alice.userId);
      const b1 = newSession(bob.userId);
      for (const session of [a1, a2, a3, b1]) await sessions.create(session);

      expect(await sessions.deleteAllForUser(alice.userId, a2.tokenHash)).toBe(2);
      expect(await store.findSessionWithUser(a1.tokenHash)).toBeNull();
      expect(await store.findSessionWithUser(a3.tokenHash)).toBeNull();
      expect(await store.findSessionWithUser(a2.tokenHash)).not.toBeNull();
      expect(await store.findSessionWithUser(b1.tokenHash)).not.toBeNull();

      expect(await sessions.deleteAllForUser(alice.userId)).toBe(1);
      expect(await store.findSessionWithUser(a2.tokenHash)).toBeNull();
      expect(await sessions.deleteAllForUser(alice.userId)).toBe(0);
      expect(await store.findSessionWithUser(b1.tokenHash)).not.toBeNull();
    });

    it('deletes every session of every user at once, returning how many', async () => {
      const all = [
        newSession(alice.userId),
        newSession(alice.userId, { method: 'sso', sso: ssoData() }),
        newSession(bob.userId),
      ];
      for (const session of all) await sessions.create(session);

      expect(await sessions.deleteAll()).toBe(3);
      for (const session of all) expect(await store.findSessionWithUser(session.tokenHash)).toBeNull();
      expect(await sessions.listForUser(alice.userId, { limit: 1000 })).toEqual([]);
      expect(await sessions.listForUser(bob.userId, { limit: 1000 })).toEqual([]);
      expect(await sessions.deleteAll()).toBe(0);

      // The users stay; new sessions can be created after.
      expect(await store.users.findByUserId(bob.userId)).not.toBeNull();
      const after = newSession(bob.userId);
      await sessions.create(after);
      expect((await store.findSessionWithUser(after.tokenHash))?.session).toEqual(after);
    });

    it('back-channel logout by sid ends only that issuer’s sessions with that sid', async () => {
      const target = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ sid: 'sid-1', subject: 'sub-a' }),
      });
      const sameSidOtherIssuer = newSession(bob.userId, {
        method: 'sso',
        sso: ssoData({ issuer: 'https://other-idp.example', sid: 'sid-1', subject: 'sub-a' }),
      });
      const sameSubjectOtherSid = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ sid: 'sid-2', subject: 'sub-a' }),
      });
      const password = newSession(alice.userId);
      for (const session of [target, sameSidOtherIssuer, sameSubjectOtherSid, password])
        await sessions.create(session);

      expect(await sessions.deleteBySso('https://idp.example', { sid: 'sid-1' })).toHaveLength(1);
      expect(await store.findSessionWithUser(target.tokenHash)).toBeNull();
      expect(await store.findSessionWithUser(sameSidOtherIssuer.tokenHash)).not.toBeNull();
      expect(await store.findSessionWithUser(sameSubjectOtherSid.tokenHash)).not.toBeNull();
      expect(await store.findSessionWithUser(password.tokenHash)).not.toBeNull();
      expect(await sessions.deleteBySso('https://idp.example', { sid: 'sid-1' })).toEqual([]);
    });

    it('back-channel logout by subject ends every session of that subject at that issuer only', async () => {
      const s1 = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ sid: 'sid-1', subject: 'sub-a' }),
      });
      const s2 = newSession(alice.userId, { method: 'sso', sso: ssoData({ sid: null, subject: 'sub-a' }) });
      const otherSubject = newSession(bob.userId, { method: 'sso', sso: ssoData({ subject: 'sub-b' }) });
      const otherIssuer = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ issuer: 'https://other-idp.example', subject: 'sub-a' }),
      });
      for (const session of [s1, s2, otherSubject, otherIssuer]) await sessions.create(session);

      expect(await sessions.deleteBySso('https://idp.example', { subject: 'sub-a' })).toHaveLength(2);
      expect(await store.findSessionWithUser(s1.tokenHash)).toBeNull();
      expect(await store.findSessionWithUser(s2.tokenHash)).toBeNull();
      expect(await store.findSessionWithUser(otherSubject.tokenHash)).not.toBeNull();
      expect(await store.findSessionWithUser(otherIssuer.tokenHash)).not.toBeNull();
      expect(await sessions.deleteBySso('https://idp.example', {})).toEqual([]);
      expect(await sessions.deleteBySso('https://unknown.example', { subject: 'sub-b' })).toEqual([]);
      expect(await store.findSessionWithUser(otherSubject.tokenHash)).not.toBeNull();
    });

    it('back-channel logout can return the sessions it ended (for the audit trail)', async () => {
      const bySid = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ sid: 'sid-r', subject: 'sub-r' }),
      });
      const bySubject = newSession(bob.userId, {
        method: 'sso',
        sso: ssoData({ sid: null, subject: 'sub-s' }),
      });
      const untouched = newSession(bob.userId, { method: 'sso', sso: ssoData({ subject: 'sub-t' }) });
      for (const session of [bySid, bySubject, untouched]) await sessions.create(session);

      expect(await sessions.deleteBySso('https://idp.example', { sid: 'sid-r' })).toEqual([
        withoutProviderTokens(bySid),
      ]);
      expect(await sessions.deleteBySso('https://idp.example', { subject: 'sub-s' })).toEqual([
        withoutProviderTokens(bySubject),
      ]);
      expect(await sessions.deleteBySso('https://idp.example', { sid: 'sid-r' })).toEqual([]);
      expect(await sessions.deleteBySso('https://idp.example', {})).toEqual([]);
      expect(await sessions.deleteBySso('https://other.example', { subject: 'sub-t' })).toEqual([]);
      expect(await store.findSessionWithUser(untouched.tokenHash)).not.toBeNull();
    });

    it('back-channel logout naming both sid and sub ends only a session matching both (issue 14, finding 8)', async () => {
      const both = newSession(alice.userId, {
        method: 'sso',
        sso: ssoData({ sid: 'sid-b', subject: 'sub-b' }),
      });
      const sidOnly = newSession(bob.userId, {
        method: 'sso',
        sso: ssoData({ sid: 'sid-c', subject: 'sub-x' }),
      });
      for (const session of [both, sidOnly]) await sessions.create(session);
      expect(await sessions.deleteBySso('https://idp.example', { sid: 'sid-c', subject: 'sub-b' })).toEqual(
        [],
      );
      expect(await sessions.deleteBySso('https://idp.example', { sid: 'sid-b', subject: 'sub-x' })).toEqual(
        [],
      );
      expect(await store.findSessionWithUser(sidOnly.tokenHash)).not.toBeNull();
      expect(
        (await sessions.deleteBySso('https://idp.example', { sid: 'sid-b', subject: 'sub-b' })).map(
          (s) => s.handle,
        ),
      ).toEqual([both.handle]);
    });

    it('lists a user’s sessions newest first, and ends one by handle only for its own user', async () => {
      const older = newSession(alice.userId, { createdAt: T0 });
      const newer = newSession(alice.userId, { createdAt: at(600), method: 'sso', sso: ssoData() });
      const bobs = newSession(bob.userId);
      for (const session of [older, newer, bobs]) await sessions.create(session);

      expect(await sessions.listForUser(alice.userId, { limit: 1000 })).toEqual([
        withoutProviderTokens(newer),
        older,
      ]);
      expect(await sessions.listForUser(bob.userId, { limit: 1000 })).toEqual([bobs]);
      expect(await sessions.listForUser('no-such-user', { limit: 1000 })).toEqual([]);

      expect(await sessions.deleteByHandle(alice.userId, bobs.handle)).toBe(false);
      expect(await store.findSessionWithUser(bobs.tokenHash)).not.toBeNull();
      expect(await sessions.deleteByHandle(alice.userId, older.handle)).toBe(true);
      expect(await sessions.deleteByHandle(alice.userId, older.handle)).toBe(false);
      expect(await sessions.listForUser(alice.userId, { limit: 1000 })).toEqual([
        withoutProviderTokens(newer),
      ]);
    });

    it('purges sessions past their absolute or idle time-out, up to the limit', async () => {
      const idleTimeoutS = 30 * 60;
      const now = at(10 * HOUR_S);
      // Alive: last seen 10 minutes ago, expiring later.
      const alive = newSession(alice.userId, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - 600),
      });
      // Absolute time-out passed although recently seen.
      const expired = newSession(alice.userId, {
        createdAt: T0,
        lastSeenAt: at(10 * HOUR_S - 60),
        expiresAt: at(10 * HOUR_S - 1),
      });
      const expiredExactly = newSession(alice.userId, { lastSeenAt: at(10 * HOUR_S - 60), expiresAt: now });
      // Idle time-out passed although not expired.
      const idle = newSession(bob.userId, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - idleTimeoutS - 1),
      });
      const idleExactly = newSession(bob.userId, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - idleTimeoutS),
      });
      // Just inside both.
      const almostIdle = newSession(bob.userId, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - idleTimeoutS + 1),
        expiresAt: at(10 * HOUR_S + 1),
      });
      for (const session of [alive, expired, expiredExactly, idle, idleExactly, almostIdle]) {
        await sessions.create(session);
      }

      expect(await sessions.purgeExpired(now, idleTimeoutS, 3)).toBe(3);
      expect(await sessions.purgeExpired(now, idleTimeoutS, 3)).toBe(1);
      expect(await sessions.purgeExpired(now, idleTimeoutS, 3)).toBe(0);
      for (const gone of [expired, expiredExactly, idle, idleExactly]) {
        expect(await store.findSessionWithUser(gone.tokenHash)).toBeNull();
      }
      expect(await store.findSessionWithUser(alive.tokenHash)).not.toBeNull();
      expect(await store.findSessionWithUser(almostIdle.tokenHash)).not.toBeNull();
    });
  });
}
