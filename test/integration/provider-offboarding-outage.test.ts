/**
 * Offboarding while the session store cannot answer: `provider disable` fails loudly (the use case
 * the command runs rejects with SERVICE_UNAVAILABLE, which the command prints as `error
 * SERVICE_UNAVAILABLE` with exit status 1), never "ended 0"; the provider is left disabled (no new
 * logins: the safe side of the two steps), and the same command run once the store is back ends
 * what it could not. A real redis-server, frozen with SIGSTOP (connections open, no answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { MemoryThrottleStore } from '../../src/adapters/memory/memory-throttle-store.js';
import type { RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { RedisSessionStore } from '../../src/adapters/redis/redis-session-store.js';
import { openRedis } from '../../src/adapters/redis/redis-start.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { SqlUserLookup } from '../../src/adapters/sql/sql-user-lookup.js';
import { SplitStore } from '../../src/adapters/stores/split-store.js';
import { AdminProviders } from '../../src/application/admin/admin-providers.js';
import { silentLoginEvents } from '../../src/application/login-events.js';
import { SessionEnding } from '../../src/application/session-ending.js';
import { sessionKeepUntil } from '../../src/domain/session/session.js';
import { systemClock } from '../../src/domain/shared/clock.port.js';
import { isDomainError } from '../../src/domain/shared/domain-error.js';
import { contractSession, contractSsoData } from '../../src/testing/stores.js';
import { providerSettings } from '../contract/provider-registry.contract.js';
import { newUser, T0 } from '../contract/user-repository.contract.js';
import { openTestStore, testMigrations } from '../support/databases.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

describe('provider disable while the session store cannot answer [redis]', () => {
  let redis: TestRedis;
  let client: RedisClient;
  let sql: SqlClient;

  beforeAll(async () => {
    redis = await startTestRedis();
    client = await openRedis({ url: redis.url, commandTimeoutMs: 500 }, { variable: 'REDIS_URL' });
    sql = await openTestStore('pglite');
  });
  afterAll(async () => {
    redis?.signal('SIGCONT');
    client?.disconnect();
    await sql?.close();
    await redis?.close();
  });

  it('fails with SERVICE_UNAVAILABLE, leaves the provider disabled, and a second run ends the sessions', async () => {
    const store = new SplitStore(
      new SqlStore(sql, testMigrations()),
      {
        sessions: new RedisSessionStore(client, { keyPrefix: 'outage:' }),
        throttle: new MemoryThrottleStore(),
        isReady: async () => true,
        close: async () => undefined,
      },
      new SqlUserLookup(sql),
    );
    const registry = new SqlProviderRegistry(sql, AesTokenSealer.random());
    const admin = new AdminProviders(
      registry,
      { interpreterNames: ['claims'], environmentRedirectUris: [], canSealSecrets: true },
      systemClock,
      new SessionEnding(store, systemClock, silentLoginEvents),
    );
    await store.directory.addTenant('t-acme', null);
    await admin.add(providerSettings('acme', { tenants: ['t-acme'] }), { clientSecret: 's', settings: {} });
    const ann = await store.users.create(newUser({ username: 'ann', tenantId: 't-acme' }), T0);
    await store.users.bindProviderAccount(ann.userId, {
      provider: 'acme',
      issuer: 'https://idp.example',
      subject: 'sub-ann',
    });
    const now = new Date();
    const session = contractSession(ann.userId, {
      method: 'sso',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      sso: contractSsoData({ provider: 'acme' }),
    });
    await store.sessions.create(session, sessionKeepUntil(session, 1800));

    redis.signal('SIGSTOP');
    const failed = await admin.disable('acme').then(
      () => null,
      (error: unknown) => error,
    );
    redis.signal('SIGCONT');
    expect(isDomainError(failed) && failed.code).toBe('SERVICE_UNAVAILABLE');
    expect((await registry.find('acme'))?.enabled).toBe(false);
    expect(await store.sessions.findByTokenHash(session.tokenHash)).not.toBeNull();

    const again = await admin.disable('acme');
    expect(again.sessionsEnded).toBe(1);
    expect(await store.sessions.findByTokenHash(session.tokenHash)).toBeNull();
  });
});
