/**
 * Offboarding at the session check: an SSO session whose provider is no longer served (disabled
 * or removed from the registry) ends when next presented, with its audit record; a session of a
 * provider still served, and a password session, are untouched. The directory is stood in for by
 * its port (`ProviderStatus`); test/sso/per-customer-providers.test.ts runs the same through the
 * registry and a second instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import { SessionAuthenticator } from '../../src/application/session-authenticator.js';
import { TOKENS } from '../../src/boot/tokens.js';
import { hashSessionToken, newSessionToken } from '../../src/domain/session/session-token.js';
import { isDomainError } from '../../src/domain/shared/domain-error.js';
import { contractSession, contractSsoData } from '../../src/testing/stores.js';
import { seedUser, startTestServer, type TestServer } from '../support/test-server.js';

describe('an SSO session whose provider is no longer served', () => {
  let server: TestServer;
  let authenticator: SessionAuthenticator;

  beforeAll(async () => {
    server = await startTestServer({ store: 'memory' });
    const { container } = server.gatehouse;
    authenticator = new SessionAuthenticator(
      container.get(TOKENS.Store),
      server.clock,
      container.get(TOKENS.SessionSettings),
      container.get(TOKENS.SessionEnding),
      undefined,
      undefined,
      { isServed: (id) => id !== 'offboarded' },
    );
  });
  afterAll(() => server?.close());

  async function sessionOf(provider: string | null) {
    const user = await seedUser(server, {
      username: `u-${provider ?? 'password'}-${Math.random().toString(36).slice(2, 8)}`,
      userLevel: 8,
      tenantId: 't1',
      groupId: 'g1',
    });
    const token = newSessionToken(nodeRandom);
    const now = server.clock.now();
    const session = contractSession(user.userId, {
      tokenHash: hashSessionToken(token),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      ...(provider ? { method: 'sso' as const, sso: contractSsoData({ provider }) } : {}),
    });
    await server.gatehouse.store.sessions.create(session, session.expiresAt);
    return { token, user, tokenHash: session.tokenHash };
  }

  it('refuses and ends it, audited as provider_disabled', async () => {
    const { token, user, tokenHash } = await sessionOf('offboarded');
    const refused = await authenticator.authenticate(token).catch((error: unknown) => error);
    expect(isDomainError(refused) && refused.code).toBe('NOT_AUTHENTICATED');
    expect(await server.gatehouse.store.sessions.findByTokenHash(tokenHash)).toBeNull();
    expect(await server.gatehouse.store.audit.listForUser(user.userId, { limit: 10 })).toContainEqual(
      expect.objectContaining({
        event: 'session_revoked',
        reason: 'provider_disabled',
        actor: 'administrator',
      }),
    );
  });

  it('without a provider status (a container given no registry), every provider is served', async () => {
    const { container } = server.gatehouse;
    const withoutDirectory = new SessionAuthenticator(
      container.get(TOKENS.Store),
      server.clock,
      container.get(TOKENS.SessionSettings),
      container.get(TOKENS.SessionEnding),
    );
    const { token, user } = await sessionOf('offboarded');
    expect((await withoutDirectory.authenticate(token)).user.userId).toBe(user.userId);
  });

  it("keeps a served provider's session and a password session", async () => {
    for (const provider of ['acme', null]) {
      const { token, user } = await sessionOf(provider);
      expect((await authenticator.authenticate(token)).user.userId).toBe(user.userId);
    }
  });
});
