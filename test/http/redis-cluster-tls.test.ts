/**
 * Issue 10, item 3 on a cluster: a Redis Cluster that speaks only TLS and wants a password
 * (`--port 0 --tls-port`, `--tls-cluster yes`, `--requirepass`): SESSION_STORE=redis with
 * REDIS_CLUSTER_NODES, REDIS_CLUSTER_TLS, REDIS_TLS_CA_FILE and REDIS_CLUSTER_PASSWORD logs in and
 * checks sessions on it; a wrong password stops start-up naming REDIS_CLUSTER_NODES.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver } from '../../src/boot/gatehouse.js';
import { openTestStore } from '../support/databases.js';
import { dieWithTestProcess } from '../support/reaper.js';
import { ephemeralRedisArgs, freePort } from '../support/redis-server.js';
import { seedUser, startTestServer, TEST_ENV, TestClient } from '../support/test-server.js';
import { makeCertificates } from '../support/tls-certificates.js';

const run = promisify(execFile);
const PASSWORD = 'correct horse battery staple';
const REDIS_PASSWORD = 'cluster-secret-1';

describe('SESSION_STORE=redis on a TLS Redis Cluster with a password [redis-cluster]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gh-tls-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  let certificates: { ca: string; cert: string; key: string };

  /** redis-cli over TLS with the password, against one node. */
  const cli = (port: number, ...args: string[]) =>
    run('redis-cli', [
      '--tls',
      '--cacert',
      certificates.ca,
      '-a',
      REDIS_PASSWORD,
      '--no-auth-warning',
      '-p',
      String(port),
      ...args,
    ]);

  beforeAll(async () => {
    certificates = makeCertificates(dir);
    while (ports.length < 6) {
      const port = await freePort();
      if (port < 55_000 && !ports.includes(port)) ports.push(port);
    }
    for (const port of ports) {
      children.push(
        dieWithTestProcess(
          spawn(
            'redis-server',
            [
              ...['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1'],
              ...['--tls-cert-file', certificates.cert, '--tls-key-file', certificates.key],
              ...['--tls-ca-cert-file', certificates.ca, '--tls-auth-clients', 'no'],
              ...['--tls-cluster', 'yes', '--tls-replication', 'yes'],
              ...['--requirepass', REDIS_PASSWORD, '--masterauth', REDIS_PASSWORD],
              ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
              ...['--cluster-node-timeout', '2000', ...ephemeralRedisArgs(dir)],
            ],
            { stdio: 'ignore' },
          ),
        ),
      );
    }
    for (const port of ports) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          if ((await cli(port, 'PING')).stdout.trim() === 'PONG') break;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`TLS node ${port} did not start`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await run('redis-cli', [
      ...['--tls', '--cacert', certificates.ca, '-a', REDIS_PASSWORD, '--no-auth-warning'],
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      ...['--cluster-replicas', '1', '--cluster-yes'],
    ]);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const states = await Promise.all(
        ports.map(async (port) => (await cli(port, 'CLUSTER', 'INFO')).stdout),
      );
      // Healthy, and every replica in sync: until then a revocation's WAIT finds no replica to
      // confirm it and answers 503 (by design), which is not what this test is about.
      const replication = await Promise.all(
        ports.map(async (port) => (await cli(port, 'INFO', 'replication')).stdout),
      );
      const synced = replication.every((info) =>
        /role:master/.test(info)
          ? /connected_slaves:[1-9]/.test(info) && /slave0:.*state=online/.test(info)
          : /master_link_status:up/.test(info),
      );
      if (states.every((info) => info.includes('cluster_state:ok')) && synced) break;
      if (Date.now() > deadline) throw new Error('the TLS cluster did not become healthy');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 60_000);

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const clusterEnv = (password: string) => ({
    SESSION_STORE: 'redis',
    REDIS_CLUSTER_NODES: ports.map((port) => `127.0.0.1:${port}`).join(','),
    REDIS_CLUSTER_TLS: 'true',
    REDIS_TLS_CA_FILE: certificates.ca,
    REDIS_CLUSTER_PASSWORD: password,
    REDIS_KEY_PREFIX: 'tls:',
  });

  it('logs in, checks and ends sessions over TLS with the password', async () => {
    const server = await startTestServer({ env: clusterEnv(REDIS_PASSWORD) });
    try {
      expect((await new TestClient(server.url).get('/readyz')).body.session_store).toBe('redis-cluster');
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      // The session is in the cluster, written over TLS.
      const keys = await Promise.all(
        ports.map(async (port) => Number((await cli(port, 'DBSIZE')).stdout.trim())),
      );
      expect(keys.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
      expect((await client.post('/api/v1/logout/', {})).status).toBe(200);
      expect((await client.get('/api/v1/session/')).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('stops at start-up, naming REDIS_CLUSTER_NODES, on a wrong password', async () => {
    const config = loadConfig({
      ...TEST_ENV,
      ...clusterEnv('wrong-password'),
      REDIS_COMMAND_TIMEOUT_MS: '400',
    });
    await expect(createGatehouseOver(await openTestStore('pglite'), { config })).rejects.toThrow(
      /^REDIS_CLUSTER_NODES: /,
    );
  });
});
