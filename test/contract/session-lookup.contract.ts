import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type StoredSession,
  sessionKeepUntil,
  withoutProviderTokens,
} from '../../src/domain/session/session.js';
import type { SessionLookup } from '../../src/domain/session/session-lookup.port.js';
import type { SessionStore } from '../../src/domain/session/session-store.port.js';
import type { User } from '../../src/domain/user/user.js';
import type { DirectoryRepository, UserRepository } from '../../src/domain/user/user-repository.port.js';
import { contractAuth, contractSession, contractSsoData } from '../../src/testing/stores.js';
import { newUser, T0 } from './user-repository.contract.js';

export interface StoreWithSessions extends SessionLookup {
  sessions: SessionStore;
  users: UserRepository;
  directory: DirectoryRepository;
  close(): Promise<void>;
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** The store's session port, creating each session with its keep-until computed as the service does. */
type CreatingSessions = Omit<SessionStore, 'create'> & { create(session: StoredSession): Promise<void> };

function withKeepUntil(sessions: SessionStore): CreatingSessions {
  return Object.assign(Object.create(sessions) as SessionStore, {
    create: (session: StoredSession) => sessions.create(session, sessionKeepUntil(session, 1800)),
  });
}

/**
 * The hot path's lookup on a whole store (sessions with users): the SQL join, or a session store
 * beside the database (two lookups). The session store alone is proven by the testing kit's
 * `sessionStoreContract` (src/testing/stores.ts). `open` gives an empty store.
 */
export function sessionLookupContract(open: () => Promise<StoreWithSessions>): void {
  describe('SessionLookup contract (the session with its user)', () => {
    let store: StoreWithSessions;
    let sessions: CreatingSessions;
    let alice: User;
    let bob: User;

    beforeEach(async () => {
      store = await open();
      sessions = withKeepUntil(store.sessions);
      await store.directory.addBackend({ name: 'backend-1', externalName: 'https://app.example' });
      alice = await store.users.create(newUser({ username: 'Alice', backendName: 'backend-1' }), T0);
      bob = await store.users.create(newUser({ username: 'bob' }), T0);
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates a session and finds it by token hash, alone or with its user and backend', async () => {
      const session = contractSession(alice.userId, { createdAt: T0 });
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
      const created = [
        contractSession(alice.userId, { createdAt: T0 }),
        contractSession(bob.userId, { createdAt: T0 }),
        contractSession(alice.userId, { createdAt: T0 }),
      ];
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
      const ending = contractSession(alice.userId, { createdAt: T0 });
      const staying = contractSession(alice.userId, { createdAt: T0 });
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

    it('carries the SSO reference with the session, never the provider tokens', async () => {
      const session = contractSession(alice.userId, { createdAt: T0, method: 'sso', sso: contractSsoData() });
      await sessions.create(session);
      expect((await store.findSessionWithUser(session.tokenHash))?.session).toEqual(
        withoutProviderTokens(session),
      );
    });

    // The hot path is what the session check reads: the stage and methods must survive it (on
    // SQL, the JSON row's time too), and a session stored before them must come back without.
    it('carries `auth` with the session (each stage, the time to the millisecond), or none when made without', async () => {
      const made = [
        contractSession(alice.userId, { createdAt: T0, auth: contractAuth() }),
        contractSession(alice.userId, {
          createdAt: T0,
          auth: contractAuth({ stage: 'second_factor', amr: ['pwd'], authTime: new Date(T0.getTime() + 1) }),
        }),
        contractSession(bob.userId, {
          createdAt: T0,
          auth: contractAuth({ stage: 'enrolment', amr: ['pwd'], authTime: new Date(T0.getTime() + 999) }),
        }),
      ];
      const before = contractSession(bob.userId, { createdAt: T0 });
      for (const session of [...made, before]) await sessions.create(session);
      const found = await Promise.all(
        [...made, before].map((session) => store.findSessionWithUser(session.tokenHash)),
      );
      expect(found.map((item) => item?.session.auth)).toEqual([
        ...made.map((session) => session.auth),
        undefined,
      ]);
      expect(found[1]?.session.auth?.authTime.getTime()).toBe(T0.getTime() + 1);
      expect(found[3]?.session).not.toHaveProperty('auth');
    });

    it('returns the current user state with the session (disabled users included)', async () => {
      const session = contractSession(alice.userId, { createdAt: T0 });
      await sessions.create(session);
      await store.users.setDisabled(alice.userId, true);
      const found = await store.findSessionWithUser(session.tokenHash);
      expect(found?.user.disabled).toBe(true);
      expect(found?.user.userId).toBe(alice.userId);
    });
  });
}
