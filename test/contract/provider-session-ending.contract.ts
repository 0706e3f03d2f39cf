import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLoginEvents } from '../../src/application/login-events.js';
import { SessionEnding } from '../../src/application/session-ending.js';
import { type StoredSession, sessionKeepUntil } from '../../src/domain/session/session.js';
import { systemClock } from '../../src/domain/shared/clock.port.js';
import type { EndingStore } from '../../src/domain/store.port.js';
import type { User } from '../../src/domain/user/user.js';
import { contractSession, contractSsoData } from '../../src/testing/stores.js';
import { newUser, T0 } from './user-repository.contract.js';

/**
 * Offboarding on a whole store (users and sessions): a provider's SSO sessions are found through
 * the users bound to it and each one's session index, the required operations only, so this holds
 * on every session store. Sessions are created and never presented: nothing but the ending
 * removes them. `open` gives an empty store.
 */
export function providerSessionEndingContract(open: () => Promise<EndingStore>): void {
  describe("ending a provider's sessions (offboarding, never-presented sessions)", () => {
    let store: EndingStore;
    let ending: SessionEnding;

    beforeEach(async () => {
      store = await open();
      ending = new SessionEnding(store, systemClock, silentLoginEvents);
      await store.directory.addTenant('t-acme', null);
      await store.directory.addTenant('t-other', null);
    });
    afterEach(async () => {
      await store.close();
    });

    /** A user bound to `provider` (as its first SSO login binds it), in `tenantId`. */
    async function boundUser(username: string, provider: string, tenantId = 't-acme'): Promise<User> {
      const user = await store.users.create(newUser({ username, tenantId, groupId: null }), T0);
      const bound = await store.users.bindProviderAccount(user.userId, {
        provider,
        issuer: 'https://idp.example',
        subject: `sub-${username}`,
      });
      expect(bound).toBe('bound');
      return user;
    }

    async function sessionOf(user: User, provider: string | null): Promise<StoredSession> {
      const session = contractSession(user.userId, {
        createdAt: new Date(),
        lastSeenAt: new Date(),
        expiresAt: new Date(Date.now() + 3_600_000),
        ...(provider ? { method: 'sso' as const, sso: contractSsoData({ provider }) } : {}),
      });
      await store.sessions.create(session, sessionKeepUntil(session, 1800));
      return session;
    }

    const handlesOf = async (user: User) =>
      (await store.sessions.listForUser(user.userId)).map((session) => session.handle).sort();

    it('ends every session made through the provider, of every bound user, and nothing else', async () => {
      const ann = await boundUser('ann', 'acme');
      const bob = await boundUser('bob', 'acme');
      const carl = await boundUser('carl', 'globex');
      await sessionOf(ann, 'acme');
      await sessionOf(ann, 'acme');
      const annPassword = await sessionOf(ann, null);
      await sessionOf(bob, 'acme');
      const carlGlobex = await sessionOf(carl, 'globex');

      const ended = await ending.unit((_, end) =>
        end.throughProvider('acme', { reason: 'provider_disabled' }),
      );

      expect(ended).toBe(3);
      expect(await handlesOf(ann)).toEqual([annPassword.handle]);
      expect(await handlesOf(bob)).toEqual([]);
      expect(await handlesOf(carl)).toEqual([carlGlobex.handle]);
      const records = (await store.audit.listSince(new Date(0), 100)).filter(
        (record) => record.reason === 'provider_disabled',
      );
      expect(records.map((record) => record.username).sort()).toEqual(['ann', 'ann', 'bob']);
      expect(records.every((record) => record.event === 'session_revoked' && record.method === 'sso')).toBe(
        true,
      );
      // Run again (a retry after a failure): nothing left, nothing counted.
      expect(
        await ending.unit((_, end) => end.throughProvider('acme', { reason: 'provider_disabled' })),
      ).toBe(0);
    });

    it('ends only the sessions of the users it picks (a narrowing)', async () => {
      const ann = await boundUser('ann', 'acme', 't-acme');
      const dora = await boundUser('dora', 'acme', 't-other');
      await sessionOf(ann, 'acme');
      const kept = await sessionOf(dora, 'acme');
      const ended = await ending.unit((_, end) =>
        end.throughProvider('acme', { reason: 'provider_narrowed' }, (user) => user.tenantId === 't-acme'),
      );
      expect(ended).toBe(1);
      expect(await handlesOf(ann)).toEqual([]);
      expect(await handlesOf(dora)).toEqual([kept.handle]);
    });

    it("ends one user's sessions through a provider (a binding reset), not through another", async () => {
      const ann = await boundUser('ann', 'acme');
      await sessionOf(ann, 'acme');
      const other = await sessionOf(ann, 'globex');
      const ended = await ending.unit((_, end) =>
        end.throughProviderOf(ann, 'acme', { reason: 'sso_binding_reset' }),
      );
      expect(ended).toBe(1);
      expect(await handlesOf(ann)).toEqual([other.handle]);
    });
  });
}
