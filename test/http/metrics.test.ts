/**
 * `GET /metrics`: Prometheus text from a registry private to each Gatehouse instance, fed by the
 * login events, the session check, the store and the OpenID provider adapter; on the main port
 * by default, only on METRICS_HOST:METRICS_PORT when that is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { ProviderTap, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { pgEnabled, TRANSPORT_TARGETS } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (enough of it for these tests). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`unparsable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = value!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with that name and (at least) those labels; 0 when absent. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  );
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

async function scrape(
  baseUrl: string,
): Promise<{ samples: Sample[]; text: string; contentType: string | null }> {
  const response = await fetch(new URL('/metrics', baseUrl));
  expect(response.status).toBe(200);
  const text = await response.text();
  return { samples: parseMetrics(text), text, contentType: response.headers.get('content-type') };
}

for (const target of TRANSPORT_TARGETS) {
  describe(`metrics on the main port [${target}]`, () => {
    let server: TestServer;
    const userIds: string[] = [];

    beforeAll(async () => {
      server = await startTestServer({
        store: target,
        env: { LOGIN_MAX_FAILURES: '1', METRICS_ON_MAIN_PORT: 'true' },
      });
      for (const username of ['metrics-ann', 'metrics-bob', 'metrics-cid']) {
        const user = await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
        userIds.push(user.userId);
      }
    });
    afterAll(() => server.close());

    it('counts logins by method, outcome and reason, throttled attempts and session checks', async () => {
      const before = (await scrape(server.url)).samples;
      expect(value(before, 'gatehouse_logins_total', { method: 'password', outcome: 'success' })).toBe(0);
      expect(value(before, 'gatehouse_session_checks_total', { outcome: 'missing' })).toBe(0);

      const ann = new TestClient(server.url);
      expect((await ann.post('/api/v1/login/', { username: 'metrics-ann', password: PASSWORD })).status).toBe(
        200,
      );
      const client = new TestClient(server.url);
      expect(
        (await client.post('/api/v1/login/', { username: 'metrics-bob', password: 'wrong' })).status,
      ).toBe(401);
      // LOGIN_MAX_FAILURES=1: bob is now throttled, even with the right password.
      expect(
        (await client.post('/api/v1/login/', { username: 'metrics-bob', password: PASSWORD })).status,
      ).toBe(429);
      expect(
        (await client.post('/api/v1/login/', { username: 'metrics-nobody', password: 'x' })).status,
      ).toBe(401);
      expect((await client.get('/api/v1/session/')).status).toBe(401);
      expect((await client.get('/api/v1/session/', { cookie: 'sessionid=not-a-session' })).status).toBe(401);
      expect((await ann.get('/api/v1/session/')).status).toBe(200);

      const { samples, text, contentType } = await scrape(server.url);
      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      const logins = (labels: Record<string, string>) =>
        value(samples, 'gatehouse_logins_total', { method: 'password', ...labels });
      expect(logins({ outcome: 'success', reason: 'none' })).toBe(1);
      // A wrong password and an unknown user are one label, as they are one answer (issue 11.3).
      expect(logins({ outcome: 'failure', reason: 'authentication_failed' })).toBe(2);
      expect(logins({ outcome: 'failure' })).toBe(2);
      expect(logins({ outcome: 'throttled', reason: 'too_many_attempts' })).toBe(1);
      expect(value(samples, 'gatehouse_logins_total', { method: 'sso' })).toBe(0);
      expect(value(samples, 'gatehouse_throttled_attempts_total', { operation: 'login' })).toBe(1);
      expect(value(samples, 'gatehouse_session_checks_total', { outcome: 'missing' })).toBe(1);
      expect(value(samples, 'gatehouse_session_checks_total', { outcome: 'invalid' })).toBe(1);
      expect(value(samples, 'gatehouse_session_checks_total', { outcome: 'ok' })).toBe(1);
      expect(value(samples, 'gatehouse_session_checks_total', { outcome: 'expired' })).toBe(0);

      // Labels carry codes only: never a username or a user id.
      for (const secret of ['metrics-ann', 'metrics-bob', 'metrics-nobody', 'metrics-cid', ...userIds]) {
        expect(text).not.toContain(secret);
      }
      const reasons = new Set(
        samples
          .filter((sample) => sample.name === 'gatehouse_logins_total')
          .map((sample) => sample.labels.reason),
      );
      for (const reason of reasons) expect(reason).toMatch(/^[a-z_]+$/);
    });

    it('counts a wrong current password as a failed password change, not a failed login', async () => {
      const client = new TestClient(server.url);
      expect(
        (await client.post('/api/v1/login/', { username: 'metrics-cid', password: PASSWORD })).status,
      ).toBe(200);
      const before = (await scrape(server.url)).samples;
      const change = await client.post('/api/v1/password/', {
        old_password: 'wrong',
        new_password: 'a new passphrase',
      });
      expect(change.status).toBe(403);
      const throttled = await client.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: 'a new passphrase',
      });
      expect(throttled.status).toBe(429);
      const after = (await scrape(server.url)).samples;
      const delta = (name: string, labels: Record<string, string> = {}) =>
        value(after, name, labels) - value(before, name, labels);
      expect(delta('gatehouse_password_changes_total', { outcome: 'failure' })).toBe(1);
      expect(delta('gatehouse_logins_total', { outcome: 'failure' })).toBe(0);
      expect(delta('gatehouse_throttled_attempts_total', { operation: 'password_change' })).toBe(1);
      expect(delta('gatehouse_logins_total', { outcome: 'throttled' })).toBe(0);
    });

    it('a login writes only what it must: the first-login mark once, one throttle settlement per success', async () => {
      await seedUser(server, { username: 'metrics-dee', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      const statementCount = async (statement: string) =>
        value((await scrape(server.url)).samples, 'gatehouse_store_query_duration_seconds_count', {
          statement,
        });
      const counted = async () => ({
        mark: await statementCount('user_mark_first_login'),
        // A success's reset and release are one statement on SQL (the throttle's `settle`).
        settle: await statementCount('throttle_settle'),
      });
      const client = new TestClient(server.url);
      const login = async (password: string) =>
        (await client.post('/api/v1/login/', { username: 'metrics-dee', password })).status;

      const start = await counted();
      // Each success gives back the place it reserved in the throttle (settle); a failure keeps it.
      expect(await login(PASSWORD)).toBe(200);
      expect(await counted()).toEqual({ mark: start.mark + 1, settle: start.settle + 1 });
      expect(await login(PASSWORD)).toBe(200);
      expect(await counted()).toEqual({ mark: start.mark + 1, settle: start.settle + 2 });
      expect(await login('wrong')).toBe(401);
      server.clock.advanceSeconds(900); // past the window that LOGIN_MAX_FAILURES=1 spent
      expect(await login(PASSWORD)).toBe(200);
      expect(await counted()).toEqual({ mark: start.mark + 1, settle: start.settle + 3 });
    });

    it('times store statements by name, and exposes process metrics', async () => {
      const { samples } = await scrape(server.url);
      const count = (labels: Record<string, string>) =>
        value(samples, 'gatehouse_store_query_duration_seconds_count', labels);
      expect(count({ statement: 'session_by_token_hash', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
      expect(count({ statement: 'session_create', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
      expect(count({})).toBeGreaterThan(5);
      expect(value(samples, 'gatehouse_store_query_duration_seconds_sum')).toBeGreaterThan(0);
      const buckets = samples.filter(
        (sample) => sample.name === 'gatehouse_store_query_duration_seconds_bucket',
      );
      expect(buckets.some((sample) => sample.labels.le === '+Inf' && sample.value > 0)).toBe(true);
      // The embedded PGlite has no pool: no pool gauges.
      expect(samples.some((sample) => sample.name === 'gatehouse_store_pool_in_use')).toBe(false);
      expect(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total')).toBe(true);
      expect(samples.some((sample) => sample.name === 'nodejs_heap_size_used_bytes')).toBe(true);
    });
  });
}

for (const target of TRANSPORT_TARGETS) {
  describe(`metrics are served only where an operator opts in (issue 11, finding 3) [${target}]`, () => {
    it('answers 404 for /metrics on the main port by default, and leaves it out of the document', async () => {
      const server = await startTestServer({ store: target });
      try {
        const response = await new TestClient(server.url).get('/metrics');
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('NOT_FOUND');
        expect(server.gatehouse.metricsApp).toBeNull();
        const document = (await new TestClient(server.url).get('/api/v1/openapi.json')).body;
        expect(document.paths['/metrics']).toBeUndefined();
      } finally {
        await server.close();
      }
    });

    it('refuses METRICS_ON_MAIN_PORT together with METRICS_PORT', () => {
      expect(() => loadConfig({ METRICS_ON_MAIN_PORT: 'true', METRICS_PORT: '9100' })).toThrow(
        /METRICS_ON_MAIN_PORT/,
      );
    });
  });
}

for (const target of TRANSPORT_TARGETS) {
  describe(`metrics on a port of their own (METRICS_PORT) [${target}]`, () => {
    let server: TestServer;
    let metricsServer: RunningServer;

    beforeAll(async () => {
      server = await startTestServer({
        store: target,
        env: { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' },
      });
      await seedUser(server, { username: 'metrics-dee', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      expect(server.gatehouse.metricsApp).not.toBeNull();
      const { host, port } = server.config.metrics;
      metricsServer = await listen(server.gatehouse.metricsApp!, port!, host);
    });
    afterAll(async () => {
      await metricsServer?.close(1000);
      await server?.close();
    });

    it('answers 404 on the main port and 200 on the metrics port, and only /metrics there', async () => {
      const main = await new TestClient(server.url).get('/metrics');
      expect(main.status).toBe(404);
      expect(main.body.code).toBe('NOT_FOUND');

      const client = new TestClient(server.url);
      expect(
        (await client.post('/api/v1/login/', { username: 'metrics-dee', password: PASSWORD })).status,
      ).toBe(200);
      // A registry per instance: only this server's login is counted here.
      const { samples } = await scrape(metricsServer.url);
      expect(value(samples, 'gatehouse_logins_total', { method: 'password', outcome: 'success' })).toBe(1);

      const other = await new TestClient(metricsServer.url).get('/api/v1/session/');
      expect(other.status).toBe(404);
      expect(other.body.code).toBe('NOT_FOUND');
      expect(new URL(metricsServer.url).hostname).toBe('127.0.0.1');
    });

    it('leaves /metrics out of the OpenAPI document', async () => {
      const document = (await new TestClient(server.url).get('/api/v1/openapi.json')).body;
      expect(document.paths['/metrics']).toBeUndefined();
    });
  });
}

for (const target of TRANSPORT_TARGETS) {
  describe(`metrics of single sign-on [${target}]`, () => {
    let tp: TestProvider;
    let server: TestServer;

    beforeAll(async () => {
      tp = await startTestProvider({
        accounts: {
          gina: { preferred_username: 'gina', groups: ['g1'] },
          stranger: { preferred_username: 'stranger', groups: ['g1'] },
        },
      });
      const tap = new ProviderTap(() => tp.issuer);
      server = await startTestServer({
        store: target,
        env: ssoEnv(tp, { METRICS_ON_MAIN_PORT: 'true' }),
        oidcFetch: tap.fetch,
      });
      await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
    });
    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    it('counts SSO logins and times the calls to the provider by endpoint', async () => {
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' })).status).toBe(200);
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'stranger' })).status).toBe(401);

      const { samples, text } = await scrape(server.url);
      expect(value(samples, 'gatehouse_logins_total', { method: 'sso', outcome: 'success' })).toBe(1);
      expect(value(samples, 'gatehouse_logins_total', { method: 'sso', outcome: 'failure' })).toBe(1);
      expect(
        value(samples, 'gatehouse_logins_total', {
          method: 'sso',
          outcome: 'failure',
          reason: 'sso_invalid_groupid_and_username',
        }),
      ).toBe(1);
      const calls = (endpoint: string) =>
        value(samples, 'gatehouse_oidc_request_duration_seconds_count', { endpoint, outcome: 'ok' });
      expect(calls('discovery')).toBe(1);
      expect(calls('token')).toBe(2);
      expect(calls('jwks')).toBeGreaterThanOrEqual(1);
      expect(value(samples, 'gatehouse_oidc_request_duration_seconds_count', { endpoint: 'other' })).toBe(0);
      expect(text).not.toContain('stranger');
      expect(text).not.toContain('gina');
    });
  });
}

describe.skipIf(!pgEnabled)('metrics of the PostgreSQL pool [postgres]', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ store: 'postgres', env: { METRICS_ON_MAIN_PORT: 'true' } });
  });
  afterAll(() => server?.close());

  it('reports connections in use and waiting requests', async () => {
    expect((await new TestClient(server.url).get('/readyz')).status).toBe(200);
    const { samples } = await scrape(server.url);
    expect(samples.find((sample) => sample.name === 'gatehouse_store_pool_in_use')?.value).toBe(0);
    expect(samples.find((sample) => sample.name === 'gatehouse_store_pool_waiting')?.value).toBe(0);
  });
});
