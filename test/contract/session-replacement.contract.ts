import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLoginEvents } from '../../src/application/login-events.js';
import { SessionEnding } from '../../src/application/session-ending.js';
import { type StoredSession, sessionKeepUntil } from '../../src/domain/session/session.js';
import { systemClock } from '../../src/domain/shared/clock.port.js';
import type { EndingStore } from '../../src/domain/store.port.js';
import type { User } from '../../src/domain/user/user.js';
import { contractSession } from '../../src/testing/stores.js';
import { newUser, T0 } from './user-repository.contract.js';

/**
 * A session taking the place of another (`SessionEnder.replacedBy`: a finished second step) on a
 * whole store, with the `replace` capability or its fallback alike: only `next`'s user's session
 * ends; another user's, or none, leaves everything as it was. `open` gives an empty store.
 */
export function sessionReplacementContract(open: () => Promise<EndingStore>): void {
  describe('a session taking the place of another (replacedBy)', () => {
    let store: EndingStore;
    let ending: SessionEnding;

    beforeEach(async () => {
      store = await open();
      ending = new SessionEnding(store, systemClock, silentLoginEvents);
    });
    afterEach(async () => {
      await store.close();
    });

    const userNamed = (username: string): Promise<User> => store.users.create(newUser({ username }), T0);

    const sessionOf = (user: User): StoredSession =>
      contractSession(user.userId, {
        createdAt: new Date(),
        lastSeenAt: new Date(),
        expiresAt: new Date(Date.now() + 3_600_000),
      });

    async function stored(user: User): Promise<StoredSession> {
      const session = sessionOf(user);
      await store.sessions.create(session, sessionKeepUntil(session, 1800));
      return session;
    }

    const replace = (old: string, next: StoredSession) =>
      ending.unit((_, end) =>
        end.replacedBy(old, next, sessionKeepUntil(next, 1800), { reason: 'mfa_completed' }),
      );

    const endRecords = async () =>
      (await store.audit.listSince(new Date(0), 100)).filter((record) => record.reason === 'mfa_completed');

    it("ends the user's session and stores the next in its place, with its record", async () => {
      const ann = await userNamed('ann');
      const old = await stored(ann);
      const next = sessionOf(ann);
      expect(await replace(old.tokenHash, next)).toEqual(old);
      expect(await store.sessions.findByTokenHash(old.tokenHash)).toBeNull();
      expect(await store.sessions.findByTokenHash(next.tokenHash)).toMatchObject({ handle: next.handle });
      expect((await endRecords()).map((record) => record.userId)).toEqual([ann.userId]);
    });

    it("leaves another user's session as it was: nothing ended, nothing stored", async () => {
      const ann = await userNamed('ann');
      const bob = await userNamed('bob');
      const bobs = await stored(bob);
      const next = sessionOf(ann);
      expect(await replace(bobs.tokenHash, next)).toBeNull();
      expect(await store.sessions.findByTokenHash(bobs.tokenHash)).toMatchObject({ handle: bobs.handle });
      expect(await store.sessions.findByTokenHash(next.tokenHash)).toBeNull();
      expect(await endRecords()).toEqual([]);
    });

    it('stores nothing when the session is gone', async () => {
      const ann = await userNamed('ann');
      const gone = sessionOf(ann);
      const next = sessionOf(ann);
      expect(await replace(gone.tokenHash, next)).toBeNull();
      expect(await store.sessions.findByTokenHash(next.tokenHash)).toBeNull();
      expect(await store.sessions.listForUser(ann.userId)).toEqual([]);
    });
  });
}
