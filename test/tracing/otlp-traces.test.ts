/**
 * Issue 31: the real service (a child process, through its entry start.cts) with OTEL_* set sends
 * its spans to a real OTLP/HTTP receiver, as OTLP/JSON and as OTLP/protobuf, on Koa and Fastify,
 * with sessions in PostgreSQL and in Redis: a server span per request (its route and status)
 * continuing the caller's traceparent; under it the use case's span with its outcome, tenant and
 * provider; under that argon2's verification, the provider's calls (which carry the trace on to
 * the provider) and the store's calls (the pg and ioredis instrumentations). The request's log
 * line carries the trace id, and no span holds a password, cookie, session id, code, token,
 * secret or username.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { type ChildService, startService } from '../faults/support/child-service.js';
import { seedUsers, serviceDatabaseUrl } from '../faults/support/postgres.js';
import { openTestPostgres, pgEnabled, type TestPgSqlClient, testRedisUrl } from '../support/databases.js';
import { registerTestProvider } from '../support/oidc/register-test-provider.js';
import { DEFAULT_REDIRECT_URI, startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { decodeTraceRequest } from '../support/otlp-protobuf.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';

const PASSWORD = 'correct horse battery staple';
const WRONG_PASSWORD = 'not the password at all';
const USERNAME = 'annika-traced';
const SSO_USERNAME = 'sso-bertil';
const PROVIDER = 'customer-idp';
const TENANT = 'tenant-7';
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** Every name, attribute and event of every span, and the raw export bodies. */
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

const isServer = (method: string, route: string) => (span: ReceivedSpan) =>
  span.kind === SERVER && span.attributes['http.route'] === route && span.name === `${method} ${route}`;

const statusOf = (span: ReceivedSpan) =>
  span.attributes['http.response.status_code'] ?? span.attributes['http.status_code'];

const PG_SPAN = /^pg\.query/;
const REDIS_SPAN =
  /^(evalsha|eval|hgetall|hget|hmget|hset|exists|get|set|pexpire|zadd|zrange|multi|exec|del)$/i;

/** Four runs cover each protocol, transport and session store at least twice. */
const CASES = [
  { protocol: 'http/json', transport: 'koa', sessions: 'postgres' },
  { protocol: 'http/json', transport: 'fastify', sessions: 'redis' },
  { protocol: 'http/protobuf', transport: 'fastify', sessions: 'postgres' },
  { protocol: 'http/protobuf', transport: 'koa', sessions: 'redis' },
] as const;

for (const { protocol, transport, sessions } of CASES) {
  describe.skipIf(!pgEnabled)(
    `OTLP traces [${protocol}] [${transport}] sessions [${sessions}] [postgres]`,
    () => {
      let db: TestPgSqlClient;
      let receiver: OtlpReceiver;
      let tp: TestProvider;
      let service: ChildService;
      const stdout: string[] = [];
      const key = randomBytes(32).toString('base64');

      beforeAll(async () => {
        db = await openTestPostgres();
        tp = await startTestProvider({
          accounts: { 'sso-1': { login_name: SSO_USERNAME, groups: ['group-7'] } },
          redirectUris: [DEFAULT_REDIRECT_URI],
          quiet: true,
        });
        await seedUsers(db, [
          { username: USERNAME, password: PASSWORD },
          { username: SSO_USERNAME, password: PASSWORD },
        ]);
        await db.query(`INSERT INTO tenants (id) VALUES ('${TENANT}')`);
        await db.query(`INSERT INTO groups (id, tenant_id) VALUES ('group-7', '${TENANT}')`);
        await db.query(`UPDATE users SET tenant_id = '${TENANT}', group_id = 'group-7'`);
        await registerTestProvider(
          new SqlProviderRegistry(db, AesTokenSealer.fromBase64(key)),
          tp,
          {
            id: PROVIDER,
            tenants: [TENANT],
            levels: [0],
            usernameClaim: 'login_name',
            redirectUris: [DEFAULT_REDIRECT_URI],
          },
          { now: new Date(), actor: 'administrator' },
        );
        receiver = await startOtlpReceiver(decodeTraceRequest);
        service = await startService({
          DATABASE_URL: serviceDatabaseUrl(db.schema),
          HTTP_TRANSPORT: transport,
          TOKEN_ENCRYPTION_KEY: key,
          OIDC_ALLOW_INSECURE_HTTP: 'true',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_SERVICE_NAME: 'gatehouse-under-test',
          OTEL_TRACES_SAMPLER: 'parentbased_always_on',
          OTEL_BSP_SCHEDULE_DELAY: '50',
          ...(sessions === 'redis'
            ? {
                SESSION_STORE: 'redis',
                REDIS_URL: testRedisUrl(),
                REDIS_KEY_PREFIX: `tr${randomBytes(4).toString('hex')}:`,
              }
            : {}),
        });
        service.child.stdout!.on('data', (chunk: Buffer | string) => stdout.push(String(chunk)));
      }, 60_000);

      afterAll(async () => {
        await service?.stop();
        await Promise.all([receiver?.close(), tp?.close()]);
        await db?.close();
      });

      it('password login, SSO login, session GET: linked spans with route, status, outcome, tenant and provider; the trace id in the log line; no secret in any span', async () => {
        const callerTrace = randomBytes(16).toString('hex');
        const callerSpan = randomBytes(8).toString('hex');
        const login = await fetch(`${service.url}/api/v1/login/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', traceparent: `00-${callerTrace}-${callerSpan}-01` },
          body: JSON.stringify({ username: USERNAME, password: PASSWORD }),
        });
        expect(login.status).toBe(200);
        const cookie = login.headers.getSetCookie()[0]!.split(';', 1)[0]!;
        const sessionId = cookie.split('=', 2)[1]!;
        expect((await fetch(`${service.url}/api/v1/session/`, { headers: { cookie } })).status).toBe(200);
        // A query string is never recorded (it could carry a code).
        const queried = randomBytes(12).toString('hex');
        await (await fetch(`${service.url}/api/v1/session/?code=${queried}`)).arrayBuffer();
        const refused = await fetch(`${service.url}/api/v1/login/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: USERNAME, password: WRONG_PASSWORD }),
        });
        expect(refused.status).toBe(401);

        const nonce = randomBytes(12).toString('hex');
        const { code } = await tp.issueCode({ accountId: 'sso-1', nonce, redirectUri: DEFAULT_REDIRECT_URI });
        const sso = await fetch(`${service.url}/api/v1/openid/login/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ nonce, authorization_code: code, redirect_uri: DEFAULT_REDIRECT_URI }),
        });
        expect(sso.status).toBe(200);
        const ssoSessionId = sso.headers.getSetCookie()[0]!.split(';', 1)[0]!.split('=', 2)[1]!;

        const spans = await receiver.waitFor(
          (all) =>
            all.filter(isServer('POST', '/api/v1/login/')).length >= 2 &&
            all.filter(isServer('GET', '/api/v1/session/')).length >= 2 &&
            all.some(isServer('POST', '/api/v1/openid/login/')) &&
            all.filter((span) => span.name.startsWith('gatehouse.login.')).length >= 3,
        );
        expect(new Set(spans.map((span) => span.transport))).toEqual(
          new Set([protocol === 'http/json' ? 'json' : 'protobuf']),
        );

        // The password login: continues the caller's trace; the use case, argon2 and the store under it.
        const loginServer = spans.find(
          (span) => isServer('POST', '/api/v1/login/')(span) && span.traceId === callerTrace,
        )!;
        expect(loginServer).toBeDefined();
        expect(loginServer.parentSpanId).toBe(callerSpan);
        expect(statusOf(loginServer)).toBe(200);
        expect(loginServer.resource['service.name']).toBe('gatehouse-under-test');
        const useCase = childrenOf(spans, loginServer).find(
          (span) => span.name === 'gatehouse.login.password',
        )!;
        expect(useCase.attributes).toMatchObject({
          'gatehouse.outcome': 'ok',
          'gatehouse.tenant_id': TENANT,
          'enduser.id': `u-${USERNAME}`,
        });
        expect(useCase.status.code).not.toBe(ERROR);
        const underLogin = descendantsOf(spans, useCase);
        expect(underLogin.map((span) => span.name)).toContain('gatehouse.password.verify');
        expect(underLogin.some((span) => PG_SPAN.test(span.name))).toBe(true);
        if (sessions === 'redis') expect(underLogin.some((span) => REDIS_SPAN.test(span.name))).toBe(true);

        // The session GET: its check under the server span, the session store's calls under the check.
        const sessionServer = spans.find(
          (span) => isServer('GET', '/api/v1/session/')(span) && statusOf(span) === 200,
        )!;
        const check = childrenOf(spans, sessionServer).find(
          (span) => span.name === 'gatehouse.session.check',
        )!;
        expect(check.attributes).toMatchObject({ 'gatehouse.outcome': 'ok', 'gatehouse.tenant_id': TENANT });
        expect(
          descendantsOf(spans, check).some((span) =>
            (sessions === 'redis' ? REDIS_SPAN : PG_SPAN).test(span.name),
          ),
        ).toBe(true);

        // The refused login: its problem code is the outcome, the status ERROR.
        const failed = spans.find(
          (span) => span.name === 'gatehouse.login.password' && span.attributes['gatehouse.outcome'] !== 'ok',
        )!;
        expect(failed.attributes['gatehouse.outcome']).toBe('AUTHENTICATION_FAILED');
        expect(failed.status).toMatchObject({ code: ERROR, message: 'AUTHENTICATION_FAILED' });
        const failedServer = spans.find((span) => span.spanId === failed.parentSpanId)!;
        expect(statusOf(failedServer)).toBe(401);

        // The SSO login: the provider and tenant on its use case; the provider's calls under it,
        // each naming the provider, and the token request carried this trace to the provider.
        const ssoServer = spans.find(isServer('POST', '/api/v1/openid/login/'))!;
        expect(statusOf(ssoServer)).toBe(200);
        const ssoCase = childrenOf(spans, ssoServer).find((span) => span.name === 'gatehouse.login.sso')!;
        expect(ssoCase.attributes).toMatchObject({
          'gatehouse.outcome': 'ok',
          'gatehouse.provider_id': PROVIDER,
          'gatehouse.tenant_id': TENANT,
        });
        const calls = descendantsOf(spans, ssoCase).filter((span) =>
          span.name.startsWith('gatehouse.provider.'),
        );
        const token = calls.find((span) => span.name === 'gatehouse.provider.token')!;
        expect(token.attributes).toMatchObject({
          'gatehouse.provider_id': PROVIDER,
          'gatehouse.provider.endpoint': 'token',
          'http.response.status_code': 200,
        });
        for (const call of calls) {
          expect(call.attributes['gatehouse.provider_id']).toBe(PROVIDER);
          expect(call.kind).toBe(CLIENT);
        }
        const tokenRequest = tp.requests.find(
          (request) => request.method === 'POST' && /token/.test(request.url),
        )!;
        expect(tokenRequest.traceparent).toMatch(new RegExp(`^00-${ssoServer.traceId}-${token.spanId}-01$`));

        // The request's log line carries its trace id.
        await expect
          .poll(() =>
            stdout
              .join('')
              .split('\n')
              .filter(
                (line) => line.includes(`"trace_id":"${callerTrace}"`) && line.includes('"msg":"request"'),
              ),
          )
          .toHaveLength(1);

        // No secret in any attribute or event of any span, nor anywhere in what was exported.
        // (The seeded user ids are made from the usernames and may be told: taken out first.)
        const exported = everyValue(receiver)
          .replaceAll(`u-${USERNAME}`, '<user id>')
          .replaceAll(`u-${SSO_USERNAME}`, '<user id>');
        const secrets = [
          PASSWORD,
          WRONG_PASSWORD,
          sessionId,
          ssoSessionId,
          USERNAME,
          SSO_USERNAME,
          code,
          key,
          queried,
        ];
        secrets.push(tp.clients.gatehouse.clientSecret!);
        for (const secret of secrets)
          expect(exported.includes(secret), `an exported span holds ${secret}`).toBe(false);
      });
    },
  );
}
