/**
 * The bench's store-lookup ceiling is given the cookies of its first logins; by the time it runs,
 * later logins of the same users may have pushed some of those sessions out
 * (SESSIONS_PER_USER_MAX). It measures the ones still stored, and says so when none is left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLookupCeiling } from '../../scripts/bench/ceilings.js';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import { pgEnabled, type TestPgSqlClient } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const GONE = 'f'.repeat(64);

describe.skipIf(!pgEnabled)("the bench's store-lookup ceiling [postgres]", () => {
  let server: TestServer;
  let databaseUrl: string;
  let stored: string;

  beforeAll(async () => {
    server = await startTestServer({ store: 'postgres' });
    await seedUser(server, {
      username: 'ann',
      userId: 'u-ann',
      password: 'correct horse battery',
      tenantId: 't1',
    });
    const client = new TestClient(server.url);
    expect(
      (await client.post('/api/v1/login/', { username: 'ann', password: 'correct horse battery' })).status,
    ).toBe(200);
    stored = hashSessionToken(client.session!);
    databaseUrl = (server.sql as TestPgSqlClient).connectionString;
  });
  afterAll(() => server?.close());

  it('measures the sessions still stored, leaving out those that are gone', async () => {
    const result = await storeLookupCeiling({
      databaseUrl,
      durationS: 0.3,
      poolSize: 2,
      concurrency: 2,
      tokenHashes: [GONE, stored, GONE],
    });
    expect(result.queries).toBeGreaterThan(0);
  });

  it('refuses to measure when none of them is stored any more', async () => {
    await expect(
      storeLookupCeiling({ databaseUrl, durationS: 0.3, poolSize: 2, concurrency: 2, tokenHashes: [GONE] }),
    ).rejects.toThrow('none of the seeded sessions is stored any more');
  });
});
