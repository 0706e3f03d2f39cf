import { expect, it } from 'vitest';
import type { StoredSession } from '../domain/session/session.js';
import { sessionKeepUntil, withoutProviderTokens } from '../domain/session/session.js';
import type { SessionStore } from '../domain/session/session-store.port.js';
import {
  at,
  contractAuth,
  contractSession,
  contractSsoData,
  HOUR_S,
  hex,
  IDLE_S,
  T0,
} from './contract-fixtures.js';

/** What the session suite hands the tests of the capabilities: the store and users of the test running. */
export interface SessionSuite {
  readonly sessions: SessionStore;
  readonly alice: string;
  readonly bob: string;
  create(session: StoredSession): Promise<void>;
  found(session: StoredSession): ReturnType<SessionStore['findByTokenHash']>;
}

/**
 * The tests of the optional capabilities (`SessionStoreCapabilities`), each registered only when
 * the store declares it: a store that leaves one out is not tested on it, nor failed.
 */
export function sessionCapabilityTests(declares: readonly string[], suite: SessionSuite): void {
  if (declares.includes('purge')) {
    it('capability purge: deletes sessions past their absolute or idle time-out, up to the limit', async () => {
      const now = at(10 * HOUR_S);
      const alive = contractSession(suite.alice, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - 600),
      });
      const expired = contractSession(suite.alice, {
        lastSeenAt: at(10 * HOUR_S - 60),
        expiresAt: at(10 * HOUR_S - 1),
      });
      const expiredExactly = contractSession(suite.alice, {
        lastSeenAt: at(10 * HOUR_S - 60),
        expiresAt: now,
      });
      const idle = contractSession(suite.bob, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - IDLE_S - 1),
      });
      const idleExactly = contractSession(suite.bob, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - IDLE_S),
      });
      const almostIdle = contractSession(suite.bob, {
        createdAt: at(9 * HOUR_S),
        lastSeenAt: at(10 * HOUR_S - IDLE_S + 1),
        expiresAt: at(10 * HOUR_S + 1),
      });
      for (const session of [alive, expired, expiredExactly, idle, idleExactly, almostIdle]) {
        await suite.create(session);
      }
      const purge = suite.sessions.capabilities.purge!;
      expect(await purge.purgeExpired(now, IDLE_S, 3)).toBe(3);
      expect(await purge.purgeExpired(now, IDLE_S, 3)).toBe(1);
      expect(await purge.purgeExpired(now, IDLE_S, 3)).toBe(0);
      for (const gone of [expired, expiredExactly, idle, idleExactly])
        expect(await suite.found(gone)).toBeNull();
      expect(await suite.found(alive)).not.toBeNull();
      expect(await suite.found(almostIdle)).not.toBeNull();
    });
  }

  if (declares.includes('paging')) {
    it('capability paging: newest first by (created, handle), after a cursor, live ones only when asked', async () => {
      // Pages carry `auth` as every read does (a pending one too); `idle` has none (pre-upgrade).
      const oldest = contractSession(suite.alice, {
        createdAt: T0,
        auth: contractAuth({ stage: 'enrolment', amr: ['pwd'] }),
      });
      const middle = contractSession(suite.alice, {
        createdAt: at(600),
        method: 'sso',
        sso: contractSsoData(),
      });
      const newest = contractSession(suite.alice, { createdAt: at(1200), auth: contractAuth() });
      const idle = contractSession(suite.alice, { createdAt: at(300), lastSeenAt: at(300) });
      for (const session of [oldest, middle, newest, idle]) await suite.create(session);
      const paging = suite.sessions.capabilities.paging!;
      expect(await paging.listPage(suite.alice, { limit: 10 })).toEqual([
        newest,
        withoutProviderTokens(middle),
        idle,
        oldest,
      ]);
      expect(
        await paging.listPage(suite.alice, {
          limit: 2,
          after: { createdAt: at(600), handle: middle.handle },
        }),
      ).toEqual([idle, oldest]);
      // At T0 + 2300 s: `oldest` (last seen T0) and `idle` (300) are past the 1800 s idle time-out.
      expect(
        await paging.listPage(suite.alice, { limit: 10, alive: { at: at(2300), idleTimeoutS: IDLE_S } }),
      ).toEqual([newest, withoutProviderTokens(middle)]);
    });
  }

  if (declares.includes('endAll')) {
    it('capability endAll: ends every session of every user at once, returning how many', async () => {
      const all = [
        contractSession(suite.alice),
        contractSession(suite.alice, { method: 'sso', sso: contractSsoData() }),
        contractSession(suite.bob),
      ];
      for (const session of all) await suite.create(session);
      const endAll = suite.sessions.capabilities.endAll!;
      expect(await endAll.deleteAll()).toBe(3);
      for (const session of all) expect(await suite.found(session)).toBeNull();
      expect(await suite.sessions.listForUser(suite.alice)).toEqual([]);
      expect(await endAll.deleteAll()).toBe(0);
      const after = contractSession(suite.bob);
      await suite.create(after);
      expect(await suite.found(after)).toEqual(after);
    });
  }

  if (declares.includes('replace')) {
    it("capability replace: ends the user's session and stores the next in its place, or neither", async () => {
      const old = contractSession(suite.alice, {
        method: 'sso',
        sso: contractSsoData(),
        auth: contractAuth({ stage: 'second_factor', amr: ['pwd'] }),
      });
      await suite.create(old);
      const replace = suite.sessions.capabilities.replace!;
      const next = contractSession(suite.alice, {
        auth: contractAuth({ stage: 'full', amr: ['pwd', 'otp'] }),
      });
      const keepUntil = sessionKeepUntil(next, IDLE_S);
      expect(await replace.replaceSession(old.tokenHash, next, keepUntil)).toEqual(old);
      expect(await suite.found(old)).toBeNull();
      expect(await suite.found(next)).toEqual(next);
      expect((await suite.sessions.listForUser(suite.alice)).map((s) => s.tokenHash)).toEqual([
        next.tokenHash,
      ]);
      // The old one is gone now: nothing is stored in its place, and one of two racing calls wins.
      const again = contractSession(suite.alice);
      expect(await replace.replaceSession(old.tokenHash, again, sessionKeepUntil(again, IDLE_S))).toBeNull();
      expect(await suite.found(again)).toBeNull();
      // Another user's session is not replaced, nor ended.
      const bobs = contractSession(suite.bob);
      await suite.create(bobs);
      const intruder = contractSession(suite.alice);
      expect(
        await replace.replaceSession(bobs.tokenHash, intruder, sessionKeepUntil(intruder, IDLE_S)),
      ).toBeNull();
      expect(await suite.found(bobs)).toEqual(bobs);
      expect(await suite.found(intruder)).toBeNull();
    });
  }

  if (declares.includes('lookupWithUser')) {
    it('capability lookupWithUser: the session with its user, in one lookup; null once ended', async () => {
      const session = contractSession(suite.alice, {
        auth: contractAuth({ stage: 'second_factor', amr: ['pwd'] }),
      });
      await suite.create(session);
      const lookup = suite.sessions.capabilities.lookupWithUser!;
      const withUser = await lookup.findSessionWithUser(session.tokenHash);
      expect(withUser?.session).toEqual(session);
      expect(withUser?.user.userId).toBe(suite.alice);
      expect(await lookup.findSessionWithUser(hex(32))).toBeNull();
      await suite.sessions.deleteByTokenHash(session.tokenHash);
      expect(await lookup.findSessionWithUser(session.tokenHash)).toBeNull();
    });
  }
}
