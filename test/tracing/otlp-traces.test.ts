/**
 * Issue 31: the real service (a child process, its own entry start.cts) with OTEL_* set sends its
 * spans to a real OTLP/HTTP receiver: a server span per request continuing the caller's
 * traceparent, the use-case span under it with its outcome and tenant, the argon2 verification
 * and the store calls (pg, ioredis instrumentations) under that; the request's log line carries
 * the trace id; no span holds a password, cookie, session id or username. Sessions in PostgreSQL
 * and in Redis.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPostgres, pgEnabled, type TestPgSqlClient, testRedisUrl } from '../support/databases.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { type ChildService, startService } from '../faults/support/child-service.js';
import { seedUsers, serviceDatabaseUrl } from '../faults/support/postgres.js';

const PASSWORD = 'correct horse battery staple';
const USERNAME = 'annika-traced';

/** Every string of every attribute and event of every span, with the raw export bodies. */
function everyValue(receiver: OtlpReceiver): string {
  const values: unknown[] = [];
  for (const span of receiver.spans) {
    values.push(span.name, ...Object.values(span.attributes));
    for (const event of span.events) values.push(event.name, ...Object.values(event.attributes));
  }
  return `${JSON.stringify(values)}\n${receiver.bodies.map((body) => body.toString('latin1')).join('\n')}`;
}

function childrenOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);
}

function descendantsOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  const direct = childrenOf(spans, parent);
  return [...direct, ...direct.flatMap((child) => descendantsOf(spans, child))];
}

const SESSION_STORES = [
  { label: 'postgres', env: (): Record<string, string> => ({}), storeSpan: /^(pg\.query|pg-pool)/ },
  {
    label: 'redis',
    env: (): Record<string, string> => ({
      SESSION_STORE: 'redis',
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `tr${randomBytes(4).toString('hex')}:`,
    }),
    storeSpan: /^(evalsha|eval|hgetall|hget|hmget|exists|get|pexpire|multi|exec|zadd|hset)$/i,
  },
] as const;

for (const protocol of ['http/json'] as const) {
  for (const store of SESSION_STORES) {
    describe.skipIf(!pgEnabled)(`OTLP traces [${protocol}] sessions [${store.label}] [postgres]`, () => {
      let db: TestPgSqlClient;
      let receiver: OtlpReceiver;
      let service: ChildService;
      const stdout: string[] = [];

      beforeAll(async () => {
        db = await openTestPostgres();
        await seedUsers(db, [{ username: USERNAME, password: PASSWORD }]);
        await db.query(`INSERT INTO tenants (id) VALUES ('tenant-7')`);
        await db.query(`INSERT INTO groups (id, tenant_id) VALUES ('group-7', 'tenant-7')`);
        await db.query(`UPDATE users SET tenant_id = 'tenant-7', group_id = 'group-7' WHERE username = $1`, [
          USERNAME,
        ]);
        receiver = await startOtlpReceiver();
        service = await startService({
          DATABASE_URL: serviceDatabaseUrl(db.schema),
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_SERVICE_NAME: 'gatehouse-under-test',
          OTEL_TRACES_SAMPLER: 'parentbased_always_on',
          OTEL_BSP_SCHEDULE_DELAY: '50',
          ...store.env(),
        });
        service.child.stdout!.on('data', (chunk: Buffer | string) => stdout.push(String(chunk)));
      }, 60_000);

      afterAll(async () => {
        await service?.stop();
        await receiver?.close();
        await db?.close();
      });

      it('a password login and a session GET: server spans continuing the caller’s trace, use cases, argon2, store calls; no secret anywhere', async () => {
        const callerTrace = randomBytes(16).toString('hex');
        const callerSpan = randomBytes(8).toString('hex');
        const login = await fetch(`${service.url}/api/v1/login/`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            traceparent: `00-${callerTrace}-${callerSpan}-01`,
          },
          body: JSON.stringify({ username: USERNAME, password: PASSWORD }),
        });
        expect(login.status).toBe(200);
        const cookie = login.headers.getSetCookie()[0]!.split(';', 1)[0]!;
        const sessionId = cookie.split('=', 2)[1]!;
        const session = await fetch(`${service.url}/api/v1/session/`, { headers: { cookie } });
        expect(session.status).toBe(200);
        const refused = await fetch(`${service.url}/api/v1/login/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: USERNAME, password: 'not the password at all' }),
        });
        expect(refused.status).toBe(401);

        const isServer = (route: string, method: string) => (span: ReceivedSpan) =>
          span.kind === 2 && span.attributes['http.route'] === route && span.name === `${method} ${route}`;
        const spans = await receiver.waitFor(
          (all) =>
            all.filter(isServer('/api/v1/login/', 'POST')).length >= 2 &&
            all.some(isServer('/api/v1/session/', 'GET')) &&
            all.filter((span) => span.name === 'gatehouse.login.password').length >= 2,
        );

        // The login: continues the caller's trace, its use case under it, argon2 and the store under that.
        const loginServer = spans.find(
          (span) => isServer('/api/v1/login/', 'POST')(span) && span.traceId === callerTrace,
        )!;
        expect(loginServer).toBeDefined();
        expect(loginServer.parentSpanId).toBe(callerSpan);
        expect(loginServer.attributes['http.status_code'] ?? loginServer.attributes['http.response.status_code']).toBe(200);
        expect(loginServer.resource['service.name']).toBe('gatehouse-under-test');
        const [useCase] = childrenOf(spans, loginServer).filter((span) => span.name === 'gatehouse.login.password');
        expect(useCase).toBeDefined();
        expect(useCase!.attributes).toMatchObject({
          'gatehouse.outcome': 'ok',
          'gatehouse.tenant_id': 'tenant-7',
          'enduser.id': `u-${USERNAME}`,
        });
        expect(useCase!.status.code).not.toBe(2);
        const underLogin = descendantsOf(spans, useCase!);
        expect(underLogin.map((span) => span.name)).toContain('gatehouse.password.verify');
        expect(underLogin.some((span) => /^pg\.query/.test(span.name))).toBe(true);
        if (store.label === 'redis') expect(underLogin.some((span) => store.storeSpan.test(span.name))).toBe(true);

        // The session GET: its check under the server span, the store's calls under the check.
        const sessionServer = spans.find(isServer('/api/v1/session/', 'GET'))!;
        const [check] = childrenOf(spans, sessionServer).filter((span) => span.name === 'gatehouse.session.check');
        expect(check?.attributes).toMatchObject({ 'gatehouse.outcome': 'ok', 'gatehouse.tenant_id': 'tenant-7' });
        expect(descendantsOf(spans, check!).some((span) => store.storeSpan.test(span.name))).toBe(true);

        // The refused login: its problem code as the outcome, status ERROR, on both spans' trace.
        const failed = spans.find(
          (span) => span.name === 'gatehouse.login.password' && span.attributes['gatehouse.outcome'] !== 'ok',
        )!;
        expect(failed.attributes['gatehouse.outcome']).toBe('AUTHENTICATION_FAILED');
        expect(failed.status).toMatchObject({ code: 2, message: 'AUTHENTICATION_FAILED' });

        // The request's log line carries its trace id.
        await expect
          .poll(() =>
            stdout
              .join('')
              .split('\n')
              .filter((line) => line.includes(`"trace_id":"${callerTrace}"`) && line.includes('"msg":"request"')),
          )
          .toHaveLength(1);

        // No secret in any attribute or event of any span, nor anywhere in what was exported.
        // (The seeded user id, which may be told, is made from the username: it is taken out first.)
        const exported = everyValue(receiver).replaceAll(`u-${USERNAME}`, '<user id>');
        for (const secret of [PASSWORD, 'not the password at all', sessionId, cookie, USERNAME])
          expect(exported.includes(secret), `an exported span holds ${secret}`).toBe(false);
      });
    });
  }
}
