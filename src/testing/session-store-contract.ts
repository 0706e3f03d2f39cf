import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StoredSession, sessionKeepUntil, withoutProviderTokens } from '../domain/session/session.js';
import type { SessionStore, SessionStoreCapabilities } from '../domain/session/session-store.port.js';
import {
  ACME,
  at,
  byHandle,
  contractAuth,
  contractSession,
  contractSsoData,
  declaredOf,
  hex,
  IDLE_S,
  restartContractClock,
  suiteName,
  T0,
} from './contract-fixtures.js';
import { type SessionSuite, sessionCapabilityTests } from './session-capability-contract.js';

export type SessionCapability = keyof SessionStoreCapabilities;

const SESSION_CAPABILITIES: readonly SessionCapability[] = [
  'purge',
  'paging',
  'endAll',
  'lookupWithUser',
  'replace',
];

/** A store as the session suite gets it: empty, for one test. */
export interface SessionStoreUnderTest {
  sessions: SessionStore;
  /**
   * A user id sessions may belong to. Only for a store that checks users (the SQL table's foreign
   * key): it creates one. Others leave it out and the suite makes up ids.
   */
  newUserId?(): Promise<string>;
  /** Called after each test. */
  close?(): Promise<void>;
}

export interface SessionStoreContractOptions {
  /** Shown in the suite's name, e.g. `dynamodb`. */
  name: string;
  /** A fresh, empty store per test. */
  open(): Promise<SessionStoreUnderTest>;
  /** The optional capabilities the store declares: their tests run; the others are not registered. */
  declares: readonly SessionCapability[];
}

/** The behaviour every SessionStore must show, and that of each capability it declares. */
export function sessionStoreContract(options: SessionStoreContractOptions): void {
  restartContractClock();
  const { declares } = options;
  describe(suiteName('SessionStore', options.name, SESSION_CAPABILITIES, declares), () => {
    let store: SessionStoreUnderTest;
    let sessions: SessionStore;
    let alice: string;
    let bob: string;

    beforeEach(async () => {
      store = await options.open();
      sessions = store.sessions;
      alice = store.newUserId ? await store.newUserId() : `alice-${hex(4)}`;
      bob = store.newUserId ? await store.newUserId() : `bob-${hex(4)}`;
    });
    afterEach(async () => {
      await store.close?.();
    });

    const create = (session: StoredSession) => sessions.create(session, sessionKeepUntil(session, IDLE_S));
    const found = (session: StoredSession) => sessions.findByTokenHash(session.tokenHash);
    const suite: SessionSuite = {
      get sessions() {
        return sessions;
      },
      get alice() {
        return alice;
      },
      get bob() {
        return bob;
      },
      create,
      found,
    };

    it('declares exactly the capabilities it says it has', () => {
      expect(declaredOf(sessions.capabilities, SESSION_CAPABILITIES)).toEqual([...declares].sort());
    });

    it('creates a session and finds it by token hash; an unknown hash is null', async () => {
      const session = contractSession(alice);
      await create(session);
      expect(await found(session)).toEqual(session);
      expect(await sessions.findByTokenHash(hex(32))).toBeNull();
    });

    it('stores null client details', async () => {
      const session = contractSession(bob, { clientAddress: null, userAgent: null });
      await create(session);
      expect(await found(session)).toEqual(session);
    });

    it('round-trips the SSO fields; the provider tokens come back only when the session ends', async () => {
      const full = contractSession(alice, { method: 'sso', sso: contractSsoData() });
      const minimal = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ sid: null, idToken: null, accessTokenSealed: null, refreshTokenSealed: null }),
      });
      await create(full);
      await create(minimal);
      expect(await found(full)).toEqual(withoutProviderTokens(full));
      expect(await found(minimal)).toEqual(withoutProviderTokens(minimal));
      expect(await sessions.deleteByTokenHash(full.tokenHash)).toEqual(full);
      expect(await sessions.deleteByTokenHash(minimal.tokenHash)).toEqual(minimal);
    });

    it('never carries the provider tokens in a lookup or a list (they can be kilobytes each)', async () => {
      const big = 'x'.repeat(200_000);
      const session = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ idToken: big, accessTokenSealed: big, refreshTokenSealed: big }),
      });
      await create(session);
      expect(JSON.stringify(await found(session)).length).toBeLessThan(2000);
      const [listed] = await sessions.listForUser(alice);
      expect(JSON.stringify(listed).length).toBeLessThan(2000);
      expect((await sessions.deleteByTokenHash(session.tokenHash))?.sso?.refreshTokenSealed).toBe(big);
    });

    // The token marks a pending session, so a store that loses `auth` fails closed; but it breaks
    // step-up (a session made with two factors would read as password only) and the pending kind.
    it('keeps `auth` exactly: the stage, the methods in order, the time to the millisecond', async () => {
      const full = contractSession(alice, { auth: contractAuth() });
      const second = contractSession(alice, {
        auth: contractAuth({ stage: 'second_factor', amr: ['pwd'], authTime: new Date(T0.getTime() + 7) }),
      });
      const enrolment = contractSession(bob, {
        auth: contractAuth({ stage: 'enrolment', amr: ['pwd'], authTime: new Date(T0.getTime() + 999) }),
      });
      const sso = contractSession(bob, {
        method: 'sso',
        sso: contractSsoData(),
        auth: contractAuth({ amr: ['sso', 'mfa', 'hwk'] }),
      });
      for (const session of [full, second, enrolment, sso]) await create(session);
      for (const session of [full, second, enrolment]) expect(await found(session)).toEqual(session);
      expect(await found(sso)).toEqual(withoutProviderTokens(sso));
      expect((await found(full))?.auth?.authTime.getTime()).toBe(T0.getTime() - 61_234);
      expect((await found(second))?.auth?.authTime.getTime()).toBe(T0.getTime() + 7);
    });

    it('gives `auth` back from every read: list, touch, delete, back-channel logout, eviction', async () => {
      const listed = contractSession(alice, { createdAt: T0, auth: contractAuth() });
      const pending = contractSession(alice, {
        createdAt: at(1),
        auth: contractAuth({ stage: 'second_factor', amr: ['pwd'] }),
      });
      const sso = contractSession(bob, {
        method: 'sso',
        sso: contractSsoData({ sid: 'sid-auth' }),
        auth: contractAuth({ amr: ['sso', 'otp'] }),
      });
      for (const session of [listed, pending, sso]) await create(session);
      expect((await sessions.listForUser(alice)).sort(byHandle)).toEqual([listed, pending].sort(byHandle));
      await sessions.touch(
        listed.tokenHash,
        at(120),
        sessionKeepUntil({ ...listed, lastSeenAt: at(120) }, IDLE_S),
      );
      expect((await found(listed))?.auth).toEqual(listed.auth);
      expect(await sessions.evictBeyond(alice, 1)).toEqual([pending]);
      expect(await sessions.deleteByTokenHash(listed.tokenHash)).toEqual({ ...listed, lastSeenAt: at(120) });
      expect(await sessions.deleteBySso(ACME, { sid: 'sid-auth' })).toEqual([withoutProviderTokens(sso)]);
    });

    // A session stored before second factors existed: the service reads it as its login method
    // says (`sessionAuthOf`). A store that made up facts for it would be believed.
    it('gives a session created without `auth` back without it, from every read', async () => {
      const session = contractSession(alice);
      const sso = contractSession(bob, { method: 'sso', sso: contractSsoData({ sid: 'sid-old' }) });
      for (const each of [session, sso]) await create(each);
      expect((await found(session))?.auth).toBeUndefined();
      expect((await sessions.listForUser(alice)).map((each) => each.auth)).toEqual([undefined]);
      expect((await sessions.deleteByTokenHash(session.tokenHash))?.auth).toBeUndefined();
      expect((await sessions.deleteBySso(ACME, { sid: 'sid-old' })).map((each) => each.auth)).toEqual([
        undefined,
      ]);
    });

    it('touch only moves last-seen forward, and keeps the absolute expiry', async () => {
      const session = contractSession(alice);
      await create(session);
      const touch = (seconds: number) =>
        sessions.touch(
          session.tokenHash,
          at(seconds),
          sessionKeepUntil({ ...session, lastSeenAt: at(seconds) }, IDLE_S),
        );
      await touch(300);
      expect((await found(session))?.lastSeenAt).toEqual(at(300));
      await touch(120);
      expect((await found(session))?.lastSeenAt).toEqual(at(300));
      await touch(301);
      const after = await found(session);
      expect(after?.lastSeenAt).toEqual(at(301));
      expect(after?.expiresAt).toEqual(session.expiresAt);
      await expect(sessions.touch(hex(32), at(400), at(4000))).resolves.toBeUndefined();
    });

    it('deletes by token hash: returns the session, then null; of two at once, one gets it', async () => {
      const session = contractSession(alice, { method: 'sso', sso: contractSsoData() });
      const other = contractSession(alice);
      await create(session);
      await create(other);
      expect(await sessions.deleteByTokenHash(session.tokenHash)).toEqual(session);
      expect(await sessions.deleteByTokenHash(session.tokenHash)).toBeNull();
      expect(await found(session)).toBeNull();
      expect(await found(other)).not.toBeNull();
      const raced = await Promise.all([
        sessions.deleteByTokenHash(other.tokenHash),
        sessions.deleteByTokenHash(other.tokenHash),
      ]);
      expect(raced.filter((taken) => taken !== null)).toHaveLength(1);
    });

    it('lists every session of a user (any order), and only theirs', async () => {
      const older = contractSession(alice, { createdAt: T0 });
      const newer = contractSession(alice, { createdAt: at(600), method: 'sso', sso: contractSsoData() });
      const bobs = contractSession(bob);
      for (const session of [older, newer, bobs]) await create(session);
      expect((await sessions.listForUser(alice)).sort(byHandle)).toEqual(
        [withoutProviderTokens(newer), older].sort(byHandle),
      );
      expect(await sessions.listForUser(bob)).toEqual([bobs]);
      expect(await sessions.listForUser(`nobody-${hex(4)}`)).toEqual([]);
    });

    it('deletes all sessions of a user, optionally except one, leaving other users alone', async () => {
      const [a1, a2, a3] = [contractSession(alice), contractSession(alice), contractSession(alice)];
      const b1 = contractSession(bob);
      for (const session of [a1!, a2!, a3!, b1]) await create(session);
      expect(await sessions.deleteAllForUser(alice, a2!.tokenHash)).toBe(2);
      expect(await found(a1!)).toBeNull();
      expect(await found(a3!)).toBeNull();
      expect(await found(a2!)).not.toBeNull();
      expect(await found(b1)).not.toBeNull();
      expect(await sessions.deleteAllForUser(alice)).toBe(1);
      expect(await sessions.deleteAllForUser(alice)).toBe(0);
      expect(await sessions.listForUser(alice)).toEqual([]);
      expect(await found(b1)).not.toBeNull();
    });

    it('ends one session by handle, only for its own user', async () => {
      const mine = contractSession(alice);
      const bobs = contractSession(bob);
      for (const session of [mine, bobs]) await create(session);
      expect(await sessions.deleteByHandle(alice, bobs.handle)).toBe(false);
      expect(await found(bobs)).not.toBeNull();
      expect(await sessions.deleteByHandle(alice, mine.handle)).toBe(true);
      expect(await sessions.deleteByHandle(alice, mine.handle)).toBe(false);
      expect(await found(mine)).toBeNull();
    });

    it('back-channel logout by sid ends only that issuer’s sessions with that sid', async () => {
      const target = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ sid: 'sid-1', subject: 'sub-a' }),
      });
      const otherIssuer = contractSession(bob, {
        method: 'sso',
        sso: contractSsoData({ issuer: 'https://other-idp.example', sid: 'sid-1', subject: 'sub-a' }),
      });
      const otherSid = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ sid: 'sid-2', subject: 'sub-a' }),
      });
      const password = contractSession(alice);
      for (const session of [target, otherIssuer, otherSid, password]) await create(session);
      expect(await sessions.deleteBySso(ACME, { sid: 'sid-1' })).toEqual([withoutProviderTokens(target)]);
      expect(await found(target)).toBeNull();
      for (const kept of [otherIssuer, otherSid, password]) expect(await found(kept)).not.toBeNull();
      expect(await sessions.deleteBySso(ACME, { sid: 'sid-1' })).toEqual([]);
    });

    it("back-channel logout ends only its own provider's sessions when two providers share an issuer", async () => {
      const acme = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ sid: 'sid-1', subject: 'sub-a' }),
      });
      const globex = contractSession(bob, {
        method: 'sso',
        sso: contractSsoData({ provider: 'globex', sid: 'sid-1', subject: 'sub-a' }),
      });
      for (const session of [acme, globex]) await create(session);
      expect(await found(globex)).toMatchObject({ sso: { provider: 'globex' } });
      expect(await sessions.deleteBySso(ACME, { sid: 'sid-1', subject: 'sub-a' })).toEqual([
        withoutProviderTokens(acme),
      ]);
      expect(await found(globex)).not.toBeNull();
      expect(await sessions.deleteBySso(ACME, { subject: 'sub-a' })).toEqual([]);
      expect(
        (
          await sessions.deleteBySso(
            { provider: 'globex', issuer: 'https://idp.example' },
            { subject: 'sub-a' },
          )
        ).map((s) => s.handle),
      ).toEqual([globex.handle]);
    });

    it('back-channel logout by subject ends every session of that subject at that issuer only', async () => {
      const s1 = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ sid: 'sid-1', subject: 'sub-a' }),
      });
      const s2 = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ sid: null, subject: 'sub-a' }),
      });
      const otherSubject = contractSession(bob, {
        method: 'sso',
        sso: contractSsoData({ subject: 'sub-b' }),
      });
      const otherIssuer = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ issuer: 'https://other-idp.example', subject: 'sub-a' }),
      });
      for (const session of [s1, s2, otherSubject, otherIssuer]) await create(session);
      const ended = await sessions.deleteBySso(ACME, { subject: 'sub-a' });
      expect(ended.sort(byHandle)).toEqual(
        [withoutProviderTokens(s1), withoutProviderTokens(s2)].sort(byHandle),
      );
      expect(await found(otherSubject)).not.toBeNull();
      expect(await found(otherIssuer)).not.toBeNull();
      expect(await sessions.deleteBySso(ACME, {})).toEqual([]);
      expect(
        await sessions.deleteBySso(
          { provider: 'acme', issuer: 'https://unknown.example' },
          { subject: 'sub-b' },
        ),
      ).toEqual([]);
    });

    // A store that builds its lookup from the missing values (a key or query holding "undefined")
    // would end the sessions of a subject or sid that is that very text.
    it('back-channel logout naming neither sid nor sub ends nothing, whatever the stored values', async () => {
      const sessionsOf = [
        contractSsoData({ subject: 'undefined', sid: 'undefined' }),
        contractSsoData({ subject: 'null', sid: 'null' }),
        contractSsoData({ subject: 'sub-a', sid: null }),
      ].map((sso) => contractSession(alice, { method: 'sso', sso }));
      for (const session of sessionsOf) await create(session);
      expect(await sessions.deleteBySso(ACME, {})).toEqual([]);
      for (const kept of sessionsOf) expect(await found(kept)).not.toBeNull();
    });

    it('back-channel logout naming both sid and sub ends only a session matching both', async () => {
      const both = contractSession(alice, {
        method: 'sso',
        sso: contractSsoData({ sid: 'sid-b', subject: 'sub-b' }),
      });
      const sidOnly = contractSession(bob, {
        method: 'sso',
        sso: contractSsoData({ sid: 'sid-c', subject: 'sub-x' }),
      });
      for (const session of [both, sidOnly]) await create(session);
      expect(await sessions.deleteBySso(ACME, { sid: 'sid-c', subject: 'sub-b' })).toEqual([]);
      expect(await sessions.deleteBySso(ACME, { sid: 'sid-b', subject: 'sub-x' })).toEqual([]);
      expect(
        (await sessions.deleteBySso(ACME, { sid: 'sid-b', subject: 'sub-b' })).map((s) => s.handle),
      ).toEqual([both.handle]);
      expect(await found(sidOnly)).not.toBeNull();
    });

    it('evicts the least recently used sessions beyond `keep`, each exactly once under concurrency', async () => {
      const created = Array.from({ length: 6 }, (_, i) =>
        contractSession(alice, { createdAt: at(i), lastSeenAt: at(i === 0 ? 100 : i) }),
      );
      for (const session of created) await create(session);
      const other = contractSession(bob);
      await create(other);
      // Last seen: #0 at 100 (the most recent), then #5, #4, ... #1 (the least).
      expect((await sessions.evictBeyond(alice, 4)).map((s) => s.handle).sort()).toEqual(
        [created[1]!.handle, created[2]!.handle].sort(),
      );
      const raced = await Promise.all([sessions.evictBeyond(alice, 2), sessions.evictBeyond(alice, 2)]);
      expect(
        raced
          .flat()
          .map((s) => s.handle)
          .sort(),
      ).toEqual([created[3]!.handle, created[4]!.handle].sort());
      expect((await sessions.listForUser(alice)).map((s) => s.handle).sort()).toEqual(
        [created[0]!.handle, created[5]!.handle].sort(),
      );
      expect(await sessions.evictBeyond(alice, 2)).toEqual([]);
      expect(await found(other)).not.toBeNull();
    });

    sessionCapabilityTests(declares, suite);
  });
}
