/**
 * `@gatehouse-auth/gatehouse/testing/stores` (`@gatehouse-auth/gatehouse-testing/stores`): the contract suites a session store and
 * a throttle store must pass, for a team writing its own (DynamoDB, Valkey, MongoDB, ...). They run
 * against the store alone: no database, no service.
 *
 *   import { sessionStoreContract, throttleStoreContract } from '@gatehouse-auth/gatehouse-testing/stores';
 *   sessionStoreContract({ name: 'dynamodb', declares: [], open: async () => ({ sessions: new MyStore() }) });
 *
 * Optional capabilities (`SessionStoreCapabilities`) are tested only when the store declares them
 * in `declares`; the others' tests are not registered at all (not skipped), and the suite's name
 * says which were left out. One test checks that the store declares exactly what `declares` says.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThrottleStore, ThrottleStoreCapabilities } from '../domain/login/throttle-store.port.js';
import {
  type SessionRecord,
  type SsoSessionData,
  type StoredSession,
  sessionKeepUntil,
  withoutProviderTokens,
} from '../domain/session/session.js';
import type { SessionStore, SessionStoreCapabilities } from '../domain/session/session-store.port.js';

export * from './service-stores.js';
// What a store's author implements against (also `/store-runtime`, without vitest), and the
// suite of a store in the running service.
export * from './store-runtime.js';

export type SessionCapability = keyof SessionStoreCapabilities;
export type ThrottleCapability = keyof ThrottleStoreCapabilities;

const SESSION_CAPABILITIES: readonly SessionCapability[] = ['purge', 'paging', 'endAll', 'lookupWithUser'];
const THROTTLE_CAPABILITIES: readonly ThrottleCapability[] = ['purge'];

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

/**
 * The suite's times are around now (a store may compare `keepUntil` with its own clock), taken
 * again by each suite: this module may stay loaded for a whole test run, longer than a window.
 */
let T0 = wholeSecondNow();

function wholeSecondNow(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}
const HOUR_S = 3600;
const IDLE_S = 1800;

function at(seconds: number, from: Date = T0): Date {
  return new Date(from.getTime() + seconds * 1000);
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A password session created at `createdAt`, last seen then, expiring 12 h later. */
export function contractSession(userId: string, overrides: Partial<StoredSession> = {}): StoredSession {
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

/** The provider and issuer of `contractSsoData`'s sessions. */
const ACME = { provider: 'acme', issuer: 'https://idp.example' } as const;

/** SSO data for a contract session: a provider reference and (sealed) tokens. */
export function contractSsoData(overrides: Partial<SsoSessionData> = {}): SsoSessionData {
  return {
    provider: 'acme',
    issuer: 'https://idp.example',
    subject: `sub-${hex(4)}`,
    sid: `sid-${hex(4)}`,
    idToken: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
    accessTokenSealed: 'v1.sealed-access',
    refreshTokenSealed: 'v1.sealed-refresh',
    ...overrides,
  };
}

const byHandle = (a: SessionRecord, b: SessionRecord) => (a.handle < b.handle ? -1 : 1);

function declaredOf(capabilities: object, known: readonly string[]): string[] {
  return known.filter((name) => (capabilities as Record<string, unknown>)[name] !== undefined).sort();
}

function suiteName(kind: string, name: string, known: readonly string[], declares: readonly string[]) {
  const missing = known.filter((capability) => !declares.includes(capability));
  return (
    `${kind} contract [${name}] (capabilities tested: ${declares.join(', ') || 'none'}; ` +
    `not declared, their tests not registered: ${missing.join(', ') || 'none'})`
  );
}

/** The behaviour every SessionStore must show, and that of each capability it declares. */
export function sessionStoreContract(options: SessionStoreContractOptions): void {
  T0 = wholeSecondNow();
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

    if (declares.includes('purge')) {
      it('capability purge: deletes sessions past their absolute or idle time-out, up to the limit', async () => {
        const now = at(10 * HOUR_S);
        const alive = contractSession(alice, {
          createdAt: at(9 * HOUR_S),
          lastSeenAt: at(10 * HOUR_S - 600),
        });
        const expired = contractSession(alice, {
          lastSeenAt: at(10 * HOUR_S - 60),
          expiresAt: at(10 * HOUR_S - 1),
        });
        const expiredExactly = contractSession(alice, { lastSeenAt: at(10 * HOUR_S - 60), expiresAt: now });
        const idle = contractSession(bob, {
          createdAt: at(9 * HOUR_S),
          lastSeenAt: at(10 * HOUR_S - IDLE_S - 1),
        });
        const idleExactly = contractSession(bob, {
          createdAt: at(9 * HOUR_S),
          lastSeenAt: at(10 * HOUR_S - IDLE_S),
        });
        const almostIdle = contractSession(bob, {
          createdAt: at(9 * HOUR_S),
          lastSeenAt: at(10 * HOUR_S - IDLE_S + 1),
          expiresAt: at(10 * HOUR_S + 1),
        });
        for (const session of [alive, expired, expiredExactly, idle, idleExactly, almostIdle]) {
          await create(session);
        }
        const purge = sessions.capabilities.purge!;
        expect(await purge.purgeExpired(now, IDLE_S, 3)).toBe(3);
        expect(await purge.purgeExpired(now, IDLE_S, 3)).toBe(1);
        expect(await purge.purgeExpired(now, IDLE_S, 3)).toBe(0);
        for (const gone of [expired, expiredExactly, idle, idleExactly]) expect(await found(gone)).toBeNull();
        expect(await found(alive)).not.toBeNull();
        expect(await found(almostIdle)).not.toBeNull();
      });
    }

    if (declares.includes('paging')) {
      it('capability paging: newest first by (created, handle), after a cursor, live ones only when asked', async () => {
        const oldest = contractSession(alice, { createdAt: T0 });
        const middle = contractSession(alice, { createdAt: at(600), method: 'sso', sso: contractSsoData() });
        const newest = contractSession(alice, { createdAt: at(1200) });
        const idle = contractSession(alice, { createdAt: at(300), lastSeenAt: at(300) });
        for (const session of [oldest, middle, newest, idle]) await create(session);
        const paging = sessions.capabilities.paging!;
        expect(await paging.listPage(alice, { limit: 10 })).toEqual([
          newest,
          withoutProviderTokens(middle),
          idle,
          oldest,
        ]);
        expect(
          await paging.listPage(alice, { limit: 2, after: { createdAt: at(600), handle: middle.handle } }),
        ).toEqual([idle, oldest]);
        // At T0 + 2300 s: `oldest` (last seen T0) and `idle` (300) are past the 1800 s idle time-out.
        expect(
          await paging.listPage(alice, { limit: 10, alive: { at: at(2300), idleTimeoutS: IDLE_S } }),
        ).toEqual([newest, withoutProviderTokens(middle)]);
      });
    }

    if (declares.includes('endAll')) {
      it('capability endAll: ends every session of every user at once, returning how many', async () => {
        const all = [
          contractSession(alice),
          contractSession(alice, { method: 'sso', sso: contractSsoData() }),
          contractSession(bob),
        ];
        for (const session of all) await create(session);
        const endAll = sessions.capabilities.endAll!;
        expect(await endAll.deleteAll()).toBe(3);
        for (const session of all) expect(await found(session)).toBeNull();
        expect(await sessions.listForUser(alice)).toEqual([]);
        expect(await endAll.deleteAll()).toBe(0);
        const after = contractSession(bob);
        await create(after);
        expect(await found(after)).toEqual(after);
      });
    }

    if (declares.includes('lookupWithUser')) {
      it('capability lookupWithUser: the session with its user, in one lookup; null once ended', async () => {
        const session = contractSession(alice);
        await create(session);
        const lookup = sessions.capabilities.lookupWithUser!;
        const withUser = await lookup.findSessionWithUser(session.tokenHash);
        expect(withUser?.session).toEqual(session);
        expect(withUser?.user.userId).toBe(alice);
        expect(await lookup.findSessionWithUser(hex(32))).toBeNull();
        await sessions.deleteByTokenHash(session.tokenHash);
        expect(await lookup.findSessionWithUser(session.tokenHash)).toBeNull();
      });
    }
  });
}

export interface ThrottleStoreContractOptions {
  name: string;
  /** A fresh, empty store per test; `close` is called after it. */
  open(): Promise<{ throttle: ThrottleStore; close?(): Promise<void> }>;
  declares: readonly ThrottleCapability[];
}

/** The behaviour every ThrottleStore must show, and its purge when it declares one. */
export function throttleStoreContract(options: ThrottleStoreContractOptions): void {
  T0 = wholeSecondNow();
  const { declares } = options;
  describe(suiteName('ThrottleStore', options.name, THROTTLE_CAPABILITIES, declares), () => {
    let handle: { throttle: ThrottleStore; close?(): Promise<void> };
    let throttle: ThrottleStore;
    const windowS = 900;

    beforeEach(async () => {
      handle = await options.open();
      throttle = handle.throttle;
    });
    afterEach(async () => {
      await handle.close?.();
    });

    const reserveAt = (key: string, seconds: number, limit = 3) =>
      throttle.reserve(key, limit, at(seconds), windowS);

    it('declares exactly the capabilities it says it has', () => {
      expect(declaredOf(throttle.capabilities, THROTTLE_CAPABILITIES)).toEqual([...declares].sort());
    });

    it('grants attempts per key up to the limit, counting each, then refuses until the window ends', async () => {
      expect(await reserveAt('user:alice', 0)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:alice', 1)).toEqual({ granted: true, used: 2 });
      expect(await reserveAt('user:bob', 1)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:alice', 2)).toEqual({ granted: true, used: 3 });
      // The window began with the first attempt, at 0: it ends at 0 + windowS.
      expect(await reserveAt('user:alice', 3)).toEqual({ granted: false, retryAt: at(windowS) });
      expect(await reserveAt('user:alice', windowS - 1)).toEqual({ granted: false, retryAt: at(windowS) });
      // A refusal takes nothing: the window did not move, and the next one starts afresh.
      expect(await reserveAt('user:alice', windowS)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('addr:192.0.2.1', windowS, 30)).toEqual({ granted: true, used: 1 });
    });

    it('never grants more than the limit under 50 parallel attempts (reserve is atomic)', async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => throttle.reserve('user:parallel', 5, at(i % 3), windowS)),
      );
      const granted = answers.filter((answer) => answer.granted);
      expect(granted).toHaveLength(5);
      expect(granted.map((answer) => (answer.granted ? answer.used : 0)).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(answers.filter((answer) => !answer.granted)).toHaveLength(45);
    });

    it('release gives one attempt back, never below zero, and keeps the window', async () => {
      for (let i = 0; i < 3; i++) await reserveAt('user:carol', i);
      await throttle.release('user:carol');
      expect(await reserveAt('user:carol', 3)).toEqual({ granted: true, used: 3 });
      for (let i = 0; i < 5; i++) await throttle.release('user:carol');
      expect(await reserveAt('user:carol', 4)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:carol', 5)).toEqual({ granted: true, used: 2 });
      expect(await reserveAt('user:carol', 6)).toEqual({ granted: true, used: 3 });
      expect(await reserveAt('user:carol', 7)).toEqual({ granted: false, retryAt: at(windowS) });
      await expect(throttle.release('user:unknown')).resolves.toBeUndefined();
    });

    it('reset forgets one key only', async () => {
      for (let i = 0; i < 3; i++) {
        await reserveAt('user:frank', i);
        await reserveAt('user:grace', i);
      }
      await throttle.reset('user:frank');
      expect(await reserveAt('user:frank', 10)).toEqual({ granted: true, used: 1 });
      expect(await reserveAt('user:grace', 10)).toEqual({ granted: false, retryAt: at(windowS) });
      await expect(throttle.reset('user:unknown')).resolves.toBeUndefined();
    });

    if (declares.includes('purge')) {
      it('capability purge: deletes keys whose window began before the cutoff, up to the limit', async () => {
        for (const key of ['k:old-1', 'k:old-2', 'k:old-3', 'k:old-4']) await reserveAt(key, 0, 1);
        await reserveAt('k:recent', 2000, 1);
        const purge = throttle.capabilities.purge!;
        const cutoff = at(1000);
        expect(await purge.purgeOlderThan(cutoff, 3)).toBe(3);
        expect(await purge.purgeOlderThan(cutoff, 3)).toBe(1);
        expect(await purge.purgeOlderThan(cutoff, 3)).toBe(0);
        // Purged keys start over (long window: only a purge can have emptied them); kept keys keep counting.
        for (const key of ['k:old-1', 'k:old-2', 'k:old-3', 'k:old-4']) {
          expect(await throttle.reserve(key, 1, at(2001), 100_000)).toEqual({ granted: true, used: 1 });
        }
        expect(await throttle.reserve('k:recent', 1, at(2001), 100_000)).toEqual({
          granted: false,
          retryAt: at(102_000),
        });
      });
    }
  });
}
