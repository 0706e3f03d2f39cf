import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver } from '../../src/boot/gatehouse.js';
import { openTestStore } from '../support/databases.js';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.js';
import { seedUser, startTestServer, TEST_ENV, TestClient } from '../support/test-server.js';
import { makeCertificates } from '../support/tls-certificates.js';

const PASSWORD = 'correct horse battery staple';

// Issue 10, item 3: TLS (rediss://) works, with a private CA given by REDIS_TLS_CA_FILE; a server
// whose certificate is not trusted stops start-up with a message naming REDIS_URL.
describe('SESSION_STORE=redis over TLS [redis]', () => {
  let redis: TestRedis;
  let tlsPort: number;
  let certificates: { ca: string; cert: string; key: string };

  beforeAll(async () => {
    certificates = makeCertificates(mkdtempSync(join(tmpdir(), 'gh-tls-')));
    tlsPort = await freePort();
    redis = await startTestRedis([
      '--tls-port',
      String(tlsPort),
      '--tls-cert-file',
      certificates.cert,
      '--tls-key-file',
      certificates.key,
      '--tls-ca-cert-file',
      certificates.ca,
      '--tls-auth-clients',
      'no',
    ]);
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('logs in and checks sessions over rediss:// with the CA from REDIS_TLS_CA_FILE', async () => {
    const server = await startTestServer({
      env: {
        SESSION_STORE: 'redis',
        REDIS_URL: `rediss://127.0.0.1:${tlsPort}`,
        REDIS_TLS_CA_FILE: certificates.ca,
      },
    });
    try {
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      // It went through the TLS port: the session is in this server.
      expect(await redis.client.dbsize()).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('stops at start-up, naming REDIS_URL, when the server certificate is not trusted', async () => {
    const config = loadConfig({
      ...TEST_ENV,
      SESSION_STORE: 'redis',
      REDIS_URL: `rediss://127.0.0.1:${tlsPort}`,
      REDIS_COMMAND_TIMEOUT_MS: '400',
    });
    await expect(createGatehouseOver(await openTestStore('pglite'), { config })).rejects.toThrow(
      /^REDIS_URL: .*(certificate|self.signed|issuer)/i,
    );
  });
});
