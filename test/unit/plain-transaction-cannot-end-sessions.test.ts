import { describe, expect, expectTypeOf, it } from 'vitest';
import type { SessionEnder } from '../../src/application/session-ending.js';
import type { SessionKeeping, SessionStore } from '../../src/domain/session/session-store.port.js';
import type { EndingRepositories, EndingStore, Repositories, Store } from '../../src/domain/store.port.js';

/**
 * The one way to end sessions, held by the types: a plain unit of work (`Store.transaction`) gets
 * sessions it can create, find, touch and list, never delete; only `SessionEnding`, handed the
 * store as an `EndingStore`, gets the deleting operations. A use case that deletes elsewhere does
 * not compile. (Checked by tsc, `npm run check`; the bodies below never run.)
 */
describe('only the session-ending use case can delete sessions', () => {
  it('a plain transaction cannot delete a session', () => {
    const plain = async (store: Store) =>
      store.transaction(async (repositories) => {
        // @ts-expect-error a plain unit of work's sessions have no deletes
        await repositories.sessions.deleteByTokenHash('hash');
        // @ts-expect-error nor the per-user ones
        await repositories.sessions.deleteAllForUser('user');
        // @ts-expect-error nor the eviction at the cap
        await repositories.sessions.evictBeyond('user', 1);
        // @ts-expect-error nor "end all"
        await repositories.sessions.capabilities.endAll?.deleteAll();
      });
    expect(typeof plain).toBe('function');
  });

  it("nor can the store's own sessions, outside a transaction", () => {
    const outside = async (store: Store) => {
      // @ts-expect-error the store a use case is handed ends nothing either
      await store.sessions.deleteBySso({ provider: 'p', issuer: 'i' }, { sid: 's' });
    };
    expect(typeof outside).toBe('function');
  });

  it('the ending store gives its units the deleting store, and is a Store for everyone else', () => {
    expectTypeOf<Repositories['sessions']>().toEqualTypeOf<SessionKeeping>();
    expectTypeOf<EndingRepositories['sessions']>().toEqualTypeOf<SessionStore>();
    expectTypeOf<SessionEnder['repositories']>().toEqualTypeOf<EndingRepositories>();
    expectTypeOf<EndingStore>().toMatchTypeOf<Store>();
    expectTypeOf<SessionStore>().toMatchTypeOf<SessionKeeping>();
    expectTypeOf<SessionKeeping>().not.toHaveProperty('deleteByTokenHash');
  });
});
