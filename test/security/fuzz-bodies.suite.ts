/**
 * Property-based fuzzing of request bodies on every endpoint of the served OpenAPI document (so a
 * route added later is fuzzed too): random JSON values, wrong types, hostile strings (NUL, lone
 * surrogates, look-alikes), raw JSON texts with duplicate keys, deep nesting and
 * prototype-pollution keys, invalid UTF-8, odd content types, sizes around the 16 KiB limit,
 * back-channel logout forms and tokens, and throttled logins.
 *
 * Every answer must be a status the document lists for that operation, never a 5xx, within the
 * client time-out; every error RFC 9457 problem+json; the users and sessions tables unchanged
 * after every single case (random logins create no session, random password changes change no
 * password); Object.prototype untouched. Registered once per store by the *.test.ts files.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/adapters/http/json-body.js';
import { nonce as newNonce, REDIRECT_URI, ssoEnv } from '../fixtures/sso/harness.js';
import { pgEnabled, type ServiceStoreKind } from '../support/databases.js';
import { issuePendingSession } from '../support/issued-sessions.js';
import { signJwt, startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, type TestServer } from '../support/test-server.js';
import {
  anyJson,
  contentType,
  deepJsonText,
  escapedJsonString,
  hostileString,
  invalidUtf8Json,
  rawObjectText,
  usernameVariants,
  wrongTypedValue,
} from './arbitraries.js';
import {
  CaseCounter,
  check,
  concretePath,
  problemViolation,
  prototypeFingerprint,
  type RawResponse,
  type RowSnapshot,
  rowsChanged,
  type SendOptions,
  type ServedOperation,
  send,
  servedOperations,
  snapshotRows,
} from './support.js';

/**
 * The operations that finish a second-factor login take a pending session only (a full one is
 * refused before the body is read), so they are sent the pending session of a user of their own:
 * its login waits for a factor it never gets (the user has none, so no fuzzed body can finish the
 * login and change the sessions), and no other route here touches that user's budgets.
 */
const SECOND_STEP: ReadonlySet<string> = new Set(['verifySecondFactor', 'mfaWebauthnOptions']);

const PASSWORD = 'correct horse battery staple';
const LIMIT = 16 * 1024;

/**
 * Runs per property. Most random bodies fail validation in a millisecond or two; a login or
 * password change that passes validation costs one argon2id verification (~25-50 ms on two
 * cores), an SSO login that passes it a round trip to the provider: those get fewer runs.
 */
export const RUNS = {
  randomJson: 80,
  wrongTypes: 60,
  rawText: 100,
  escapes: 30,
  bytes: 50,
  contentTypes: 40,
  sizes: 20,
  loginTyped: 80,
  passwordTyped: 40,
  ssoTyped: 60,
  backchannel: 120,
  getNoise: 40,
  pathParameters: 60,
  throttled: 40,
};

export function fuzzBodiesSuite(store: ServiceStoreKind): void {
  describe.skipIf(store === 'postgres' && !pgEnabled)(
    `fuzz: request bodies on every endpoint [${store}]`,
    () => {
      const counter = new CaseCounter(`fuzz bodies [${store}]`);
      let tp: TestProvider;
      let server: TestServer;
      let operations: ServedOperation[];
      let validToken: string;
      /** Pia's login waiting for its second factor: what the SECOND_STEP operations are sent. */
      let pendingToken: string;
      let rows: RowSnapshot;
      let prototypes: string;

      const op = (operationId: string): ServedOperation => {
        const found = operations.find((operation) => operation.operationId === operationId);
        if (!found) throw new Error(`no operation ${operationId} in the served document`);
        return found;
      };
      const jsonOperations = () =>
        operations.filter((operation) => operation.requestType === 'application/json');

      beforeAll(async () => {
        tp = await startTestProvider();
        server = await startTestServer({
          store,
          // Throttling would turn later cases into 429s and hide what they exercise.
          env: ssoEnv(tp, { LOGIN_MAX_FAILURES: '1000' }),
        });
        await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
        await seedUser(server, {
          username: 'dis',
          password: PASSWORD,
          tenantId: 't1',
          groupId: 'g1',
          disabled: true,
        });
        await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
        const login = await send(server.url, '/api/v1/login/', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'ann', password: PASSWORD }),
        });
        expect(login.status).toBe(200);
        validToken = /^sessionid=([^;]+)/.exec(login.setCookies[0]!)![1]!;
        const pia = await seedUser(server, { username: 'pia', password: PASSWORD });
        pendingToken = (await issuePendingSession(server.gatehouse.container, pia)).token;
        operations = await servedOperations(server);
        expect(operations.map((operation) => operation.operationId)).toEqual(
          expect.arrayContaining([
            'login',
            'logout',
            'getSession',
            'changePassword',
            'ssoLogin',
            'ssoLogout',
          ]),
        );
        rows = await snapshotRows(server);
        prototypes = prototypeFingerprint();
      }, 60_000);

      afterAll(async () => {
        counter.reportTotal();
        await server?.close();
        await tp?.close();
      });

      /** A path for the operation: parameters get random but URL-safe values. */
      const pathOf = (operation: ServedOperation, parameter = 'x') =>
        concretePath(operation.path, () => encodeURIComponent(parameter));

      /**
       * The cookie sent: a live session only where a session is required (a logout would end it),
       * the pending one on the operations that take only that.
       */
      const cookieFor = (operation: ServedOperation, useSession: boolean): Record<string, string> =>
        operation.session === 'required' && useSession
          ? { cookie: `sessionid=${SECOND_STEP.has(operation.operationId) ? pendingToken : validToken}` }
          : {};

      /** Sends one case and checks every invariant; throws (so fast-check shrinks) on a violation. */
      async function exercise(
        property: string,
        operation: ServedOperation,
        options: SendOptions & { path?: string; alsoAllowed?: number[] },
      ): Promise<RawResponse> {
        const method = options.method ?? operation.method;
        const response = await send(server.url, options.path ?? pathOf(operation), { ...options, method });
        counter.hit(property, `${operation.method} ${operation.path}`, response.status);
        if (response.status >= 500) throw new Error(`${response.status} ${response.text.slice(0, 300)}`);
        // No fuzzed body finishes the pending login (its user has no factor).
        if (SECOND_STEP.has(operation.operationId) && response.status < 400) {
          throw new Error(
            `${operation.operationId} answered ${response.status}: ${response.text.slice(0, 300)}`,
          );
        }
        if (
          !operation.statuses.includes(response.status) &&
          !options.alsoAllowed?.includes(response.status)
        ) {
          throw new Error(
            `undocumented status ${response.status} for ${operation.operationId}: ${response.text}`,
          );
        }
        check(problemViolation(response, method));
        if (response.status >= 400 && response.setCookies.some((line) => /^sessionid=[^;]/.test(line))) {
          throw new Error(`an error set a session cookie: ${response.setCookies.join(' | ')}`);
        }
        const changed = await rowsChanged(server, rows);
        check(
          changed &&
            `${changed} by ${operation.operationId} (${response.status} ${response.text.slice(0, 200)})`,
        );
        if (prototypeFingerprint() !== prototypes || ({} as Record<string, unknown>).polluted !== undefined) {
          throw new Error('Object.prototype was polluted');
        }
        return response;
      }

      const json = (headers: Record<string, string> = {}) => ({
        'content-type': 'application/json',
        ...headers,
      });

      it('answers random JSON values of any type on every JSON endpoint', async () => {
        for (const operation of jsonOperations()) {
          const property = `${operation.operationId} random JSON`;
          await fc.assert(
            fc.asyncProperty(anyJson, fc.boolean(), async (value, useSession) => {
              await exercise(property, operation, {
                headers: json(cookieFor(operation, useSession)),
                body: JSON.stringify(value),
              });
            }),
            { numRuns: RUNS.randomJson },
          );
          counter.report(property);
          if (SECOND_STEP.has(operation.operationId)) {
            // The pending session got past the guard: bodies were read, and refused as bodies.
            expect(counter.byProperty.get(property)?.get('400') ?? 0).toBeGreaterThan(0);
          }
        }
      }, 60_000);

      it('answers wrongly typed known fields on every JSON endpoint', async () => {
        for (const operation of jsonOperations()) {
          const property = `${operation.operationId} wrong types`;
          const fields = operation.requestFields.length > 0 ? operation.requestFields : ['x'];
          const body = fc.dictionary(fc.constantFrom(...fields), wrongTypedValue, {
            maxKeys: fields.length + 1,
          });
          await fc.assert(
            fc.asyncProperty(body, fc.boolean(), async (value, useSession) => {
              await exercise(property, operation, {
                headers: json(cookieFor(operation, useSession)),
                body: JSON.stringify(value),
              });
            }),
            { numRuns: RUNS.wrongTypes },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers raw JSON texts: duplicate keys, prototype-pollution keys, deep nesting', async () => {
        for (const operation of jsonOperations()) {
          const property = `${operation.operationId} raw JSON text`;
          const fields = operation.requestFields.length > 0 ? operation.requestFields : ['x'];
          const text = fc.oneof(rawObjectText(fields), deepJsonText);
          await fc.assert(
            fc.asyncProperty(text, fc.boolean(), async (body, useSession) => {
              expect(Buffer.byteLength(body)).toBeLessThanOrEqual(LIMIT);
              await exercise(property, operation, { headers: json(cookieFor(operation, useSession)), body });
            }),
            { numRuns: RUNS.rawText },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers escaped NUL and lone surrogates in every string field', async () => {
        for (const operation of jsonOperations()) {
          const property = `${operation.operationId} escaped NUL and surrogates`;
          const fields = operation.requestFields.length > 0 ? operation.requestFields : ['x'];
          await fc.assert(
            fc.asyncProperty(
              fc.array(fc.tuple(fc.constantFrom(...fields), escapedJsonString), { maxLength: 3 }),
              fc.boolean(),
              async (more, useSession) => {
                // Every field present (so validation passes and the value travels on), some repeated.
                const entries = [...fields.map((field) => [field, '"\\u0000x\\ud800"'] as const), ...more];
                const body = `{${entries.map(([key, value]) => `"${key}":${value}`).join(',')}}`;
                await exercise(property, operation, {
                  headers: json(cookieFor(operation, useSession)),
                  body,
                });
              },
            ),
            { numRuns: RUNS.escapes },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers random bytes and invalid UTF-8 sent as JSON', async () => {
        for (const operation of jsonOperations()) {
          const property = `${operation.operationId} bytes and invalid UTF-8`;
          const fields = operation.requestFields.length > 0 ? operation.requestFields : ['x'];
          const bytes = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 300 }), invalidUtf8Json(fields));
          await fc.assert(
            fc.asyncProperty(bytes, fc.boolean(), async (body, useSession) => {
              await exercise(property, operation, { headers: json(cookieFor(operation, useSession)), body });
            }),
            { numRuns: RUNS.bytes },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers any content type: only application/json is read as a body', async () => {
        for (const operation of operations.filter((candidate) => candidate.requestType !== null)) {
          const property = `${operation.operationId} content types`;
          // A body that would pass validation if read (with a wrong password: nothing may change).
          const body =
            operation.requestType === 'application/json'
              ? JSON.stringify({
                  username: 'ann',
                  password: 'wrong',
                  old_password: 'wrong',
                  new_password: 'x',
                })
              : 'logout_token=abc';
          await fc.assert(
            fc.asyncProperty(contentType, fc.boolean(), async (type, useSession) => {
              const response = await exercise(property, operation, {
                headers: { 'content-type': type, ...cookieFor(operation, useSession) },
                body,
              });
              const essence = type.split(';', 1)[0]!.trim().toLowerCase();
              // The session guard runs before the body is read: no session is 401 whatever the type.
              const guarded = operation.session === 'required' && !useSession && response.status === 401;
              if (essence !== operation.requestType && response.status !== 415 && !guarded) {
                throw new Error(
                  `content type ${JSON.stringify(type)} was read: ${response.status} ${response.text}`,
                );
              }
            }),
            { numRuns: RUNS.contentTypes },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers bodies around the 16 KiB limit, with Content-Length and chunked: 413 above it', async () => {
        for (const operation of operations.filter((candidate) => candidate.requestType !== null)) {
          const property = `${operation.operationId} sizes`;
          const isJson = operation.requestType === 'application/json';
          await fc.assert(
            fc.asyncProperty(
              fc.integer({ min: LIMIT - 64, max: LIMIT + 8 * 1024 }),
              fc.constantFrom(undefined, 1024, 7000),
              async (size, chunkSize) => {
                // Fails validation when read (empty username; no logout_token): no argon2, no state change.
                const head = isJson ? '{"username":"","password":"","pad":"' : 'pad=';
                const tail = isJson ? '"}' : '';
                const body = head + 'a'.repeat(Math.max(0, size - head.length - tail.length)) + tail;
                const response = await exercise(property, operation, {
                  headers: { 'content-type': operation.requestType!, ...cookieFor(operation, true) },
                  body,
                  ...(chunkSize ? { chunkSize } : {}),
                });
                if (Buffer.byteLength(body) > LIMIT) expect(response.status).toBe(413);
                else expect(response.status).not.toBe(413);
              },
            ),
            { numRuns: RUNS.sizes },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers well-typed logins with hostile usernames and passwords: 401 or 400, never a session', async () => {
        const operation = op('login');
        const property = 'login well-typed hostile strings';
        const body = fc.record(
          {
            username: usernameVariants(['ann', 'dis', 'gina', 'admin']),
            password: fc.oneof(
              hostileString,
              fc.constantFrom(PASSWORD.toUpperCase(), `${PASSWORD} `, `${PASSWORD}\u0000`),
            ),
            provide_basic_profile: fc.oneof(
              { weight: 4, arbitrary: fc.boolean() },
              { weight: 1, arbitrary: anyJson },
            ),
            extra: anyJson,
          },
          { requiredKeys: ['username', 'password'] },
        );
        await fc.assert(
          fc.asyncProperty(body, async (value) => {
            const response = await exercise(property, operation, {
              headers: json(),
              body: JSON.stringify(value),
            });
            expect([400, 401]).toContain(response.status);
          }),
          { numRuns: RUNS.loginTyped },
        );
        counter.report(property);
      }, 60_000);

      it('answers well-typed password changes with hostile strings: never a changed password', async () => {
        const operation = op('changePassword');
        const property = 'changePassword well-typed hostile strings';
        const body = fc.record(
          { old_password: hostileString, new_password: hostileString, extra: anyJson },
          {
            requiredKeys: ['old_password', 'new_password'],
          },
        );
        await fc.assert(
          fc.asyncProperty(body, async (value) => {
            const response = await exercise(property, operation, {
              headers: json({ cookie: `sessionid=${validToken}` }),
              body: JSON.stringify(value),
            });
            expect([400, 403]).toContain(response.status);
          }),
          { numRuns: RUNS.passwordTyped },
        );
        counter.report(property);
      }, 60_000);

      it('answers well-typed SSO logins with hostile strings against the real provider: 400 or 401', async () => {
        const operation = op('ssoLogin');
        const property = 'ssoLogin well-typed hostile strings';
        const verifier = fc.stringMatching(/^[A-Za-z0-9\-._~]{43,128}$/);
        const body = fc.record(
          {
            nonce: fc.oneof(hostileString, fc.constant(newNonce())),
            authorization_code: hostileString,
            redirect_uri: fc.oneof(
              { weight: 4, arbitrary: fc.constant(REDIRECT_URI) },
              { weight: 1, arbitrary: hostileString },
            ),
            code_verifier: fc.oneof(
              { weight: 3, arbitrary: verifier },
              { weight: 1, arbitrary: hostileString },
            ),
            provide_basic_profile: fc.boolean(),
          },
          { requiredKeys: ['nonce', 'authorization_code', 'redirect_uri'] },
        );
        await fc.assert(
          fc.asyncProperty(body, fc.boolean(), async (value, withCookie) => {
            const response = await exercise(property, operation, {
              // A made-up, well-formed cookie: a failed login must not touch any session.
              headers: json(withCookie ? { cookie: `sessionid=${'B'.repeat(43)}` } : {}),
              body: JSON.stringify(value),
            });
            expect([400, 401]).toContain(response.status);
          }),
          { numRuns: RUNS.ssoTyped },
        );
        counter.report(property);
      }, 60_000);

      it('answers back-channel logout forms and tokens: 200 or 400, never a password session ended', async () => {
        const operation = op('ssoBackchannelLogout');
        const property = 'ssoBackchannelLogout forms and tokens';
        const segment = anyJson.map((value) =>
          Buffer.from(JSON.stringify(value) ?? '').toString('base64url'),
        );
        const claims = fc.record(
          {
            sid: hostileString,
            sub: fc.oneof(hostileString, fc.constant(undefined)),
            events: fc.oneof(
              anyJson,
              fc.constant({ 'http://schemas.openid.net/event/backchannel-logout': {} }),
            ),
            nonce: hostileString,
            iat: fc.oneof(fc.integer(), anyJson),
            exp: fc.oneof(fc.integer(), anyJson),
            aud: fc.oneof(fc.constant('gatehouse'), hostileString),
            iss: fc.oneof(fc.constant(undefined), hostileString),
          },
          { requiredKeys: [] },
        );
        const token = fc.oneof(
          // Valid in every claim but sid and sub, which reach the store.
          {
            weight: 4,
            arbitrary: fc
              .record(
                { sid: hostileString, sub: fc.oneof(hostileString, fc.constant(undefined)) },
                { requiredKeys: ['sid'] },
              )
              .map((payload) => tp.signLogoutToken(payload)),
          },
          fc
            .record({ sub: hostileString })
            .map((payload) => tp.signLogoutToken({ ...payload, sid: undefined })),
          hostileString,
          fc.tuple(segment, segment, segment).map((parts) => parts.join('.')),
          claims.map((payload) => tp.signLogoutToken(payload)),
          claims.map((payload) =>
            signJwt({ typ: 'logout+jwt' }, { iss: tp.issuer, ...payload }, { alg: 'none' }),
          ),
          claims.map((payload) =>
            signJwt(
              {},
              { iss: tp.issuer, ...payload },
              { alg: 'HS256', secret: tp.clients.gatehouse.clientSecret! },
            ),
          ),
        );
        const form = fc.oneof(
          token.map((value) => new URLSearchParams({ logout_token: value }).toString()),
          fc
            .dictionary(fc.oneof(fc.constant('logout_token'), hostileString), hostileString)
            .map((value) => new URLSearchParams(value).toString()),
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.constantFrom(
            'logout_token=',
            'logout_token',
            '&&&',
            '=',
            'logout_token=%FF%FE',
            'logout_token=a&logout_token=b',
          ),
        );
        await fc.assert(
          fc.asyncProperty(form, async (body) => {
            const response = await exercise(property, operation, {
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body,
            });
            // A form over the body limit (a long hostile sid signed into the token) is refused
            // as such, before it is read; any other is answered 200 or 400.
            const expected = Buffer.byteLength(body) > BODY_LIMIT_BYTES ? [413] : [200, 400];
            expect(expected).toContain(response.status);
          }),
          { numRuns: RUNS.backchannel },
        );
        counter.report(property);
      }, 60_000);

      it('answers GET endpoints with random query strings, bodies and cookies', async () => {
        for (const operation of operations.filter((candidate) => candidate.method === 'GET')) {
          const property = `${operation.operationId} query, body and cookie noise`;
          await fc.assert(
            fc.asyncProperty(
              fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
              fc.option(fc.string({ unit: 'binary', maxLength: 100 })),
              fc.constantFrom('valid', 'made-up', 'none'),
              async (query, body, cookie) => {
                const search = new URLSearchParams(query).toString();
                const headers: Record<string, string> =
                  cookie === 'valid'
                    ? { cookie: `sessionid=${validToken}` }
                    : cookie === 'made-up'
                      ? { cookie: `sessionid=${'A'.repeat(43)}` }
                      : {};
                if (body !== null) headers['content-type'] = 'application/json';
                await exercise(property, operation, {
                  path: `${pathOf(operation)}${search ? `?${search}` : ''}`,
                  headers,
                  ...(body !== null ? { body } : {}),
                });
              },
            ),
            { numRuns: RUNS.getNoise },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers random path parameters on every templated route', async () => {
        const templated = operations.filter((candidate) => candidate.path.includes('{'));
        for (const operation of templated) {
          const property = `${operation.operationId} path parameters`;
          const parameter = fc.oneof(
            hostileString.map((value) =>
              [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
            ),
            fc.constantFrom(
              '%FF',
              '%00',
              '%',
              '%zz',
              '..',
              '.',
              '%2e%2e',
              '%2F',
              'a%2Fb',
              'A'.repeat(43),
              'x'.repeat(2000),
            ),
            fc.string({ unit: fc.constantFrom(...'abcXYZ019-_~.'), maxLength: 40 }),
          );
          await fc.assert(
            fc.asyncProperty(
              parameter,
              fc.constantFrom('valid', 'made-up', 'none'),
              async (value, cookie) => {
                const headers: Record<string, string> =
                  cookie === 'valid'
                    ? { cookie: `sessionid=${validToken}` }
                    : cookie === 'made-up'
                      ? { cookie: `sessionid=${'A'.repeat(43)}` }
                      : {};
                await exercise(property, operation, {
                  path: concretePath(operation.path, () => value),
                  // A value such as '' or '..' makes another path: that path's 404 or 405.
                  alsoAllowed: [404, 405],
                  headers,
                  ...(operation.requestType ? { body: '{}' } : {}),
                  ...(operation.requestType
                    ? { headers: { ...headers, 'content-type': operation.requestType } }
                    : {}),
                });
              },
            ),
            { numRuns: RUNS.pathParameters },
          );
          counter.report(property);
        }
      }, 60_000);

      it('answers a throttled account 429 problem+json with Retry-After, whatever the password', async () => {
        const operation = op('login');
        const property = 'login throttled (429)';
        const now = server.clock.now();
        // Spends the account's whole budget in a window that begins now.
        const { maxFailures, windowS } = server.config.throttle;
        await Promise.all(
          Array.from({ length: maxFailures }, () =>
            server.gatehouse.store.throttle.reserve('user:throttled', maxFailures, now, windowS),
          ),
        );
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom('throttled', 'THROTTLED', 'Throttled'),
            fc.oneof(
              hostileString.filter((value) => value.length > 0 && value.length <= 4096),
              fc.constant(PASSWORD),
            ),
            async (username, password) => {
              const response = await exercise(property, operation, {
                headers: json(),
                body: JSON.stringify({ username, password }),
              });
              expect(response.status).toBe(429);
              expect(response.body.code).toBe('TOO_MANY_ATTEMPTS');
              expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
            },
          ),
          { numRuns: RUNS.throttled },
        );
        counter.report(property);
      }, 60_000);

      it('still serves the fuzzed session afterwards, and the store is ready', async () => {
        const session = await send(server.url, '/api/v1/session/', {
          headers: { cookie: `sessionid=${validToken}` },
        });
        expect(session.status).toBe(200);
        // The pending login is still there, still waiting for its factor.
        const pending = await send(server.url, '/api/v1/session/', {
          headers: { cookie: `sessionid=${pendingToken}` },
        });
        expect({ status: pending.status, code: pending.body.code }).toEqual({
          status: 403,
          code: 'MFA_REQUIRED',
        });
        expect((await send(server.url, '/readyz')).status).toBe(200);
        check(await rowsChanged(server, rows));
      });

      // Examples the properties found or that are worth pinning down; they may change rows, so last.

      it('answers a NUL character in a stored value with 400, never a 500 (found by this fuzzing)', async () => {
        const nul = '\u0000';
        const login = await send(server.url, '/api/v1/login/', {
          method: 'POST',
          headers: json(),
          body: JSON.stringify({ username: `ann${nul}`, password: PASSWORD }),
        });
        expect({ status: login.status, code: login.body.code }).toEqual({
          status: 400,
          code: 'INVALID_REQUEST',
        });
        check(problemViolation(login, 'POST'));
        const backchannel = await send(server.url, '/api/v1/openid/backchannel-logout/', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ logout_token: tp.signLogoutToken({ sid: `s${nul}` }) }).toString(),
        });
        expect(backchannel.status).toBe(400);
        if (operations.some((operation) => operation.operationId === 'endSession')) {
          const end = await send(server.url, '/api/v1/sessions/%00/', {
            method: 'DELETE',
            headers: { cookie: `sessionid=${validToken}` },
          });
          expect({ status: end.status, code: end.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
        }
        check(await rowsChanged(server, rows));
      });

      it('reads prototype-pollution keys as plain keys: no login through __proto__ or constructor', async () => {
        const texts = [
          `{"__proto__":{"username":"ann","password":${JSON.stringify(PASSWORD)}}}`,
          `{"username":"ann","__proto__":{"password":${JSON.stringify(PASSWORD)}}}`,
          `{"constructor":{"prototype":{"username":"ann","password":${JSON.stringify(PASSWORD)}}}}`,
          `{"username":"ann","password":{"__proto__":${JSON.stringify(PASSWORD)}}}`,
        ];
        for (const body of texts) {
          const response = await send(server.url, '/api/v1/login/', {
            method: 'POST',
            headers: json(),
            body,
          });
          expect(response.status, body).toBe(400);
        }
        expect(prototypeFingerprint()).toBe(prototypes);
        expect(({} as Record<string, unknown>).username).toBeUndefined();
        check(await rowsChanged(server, rows));
      });

      it('takes the last of duplicate keys, as JSON.parse does, and validates that value', async () => {
        const body = `{"username":"nobody","username":"ann","password":"wrong","password":${JSON.stringify(PASSWORD)}}`;
        const response = await send(server.url, '/api/v1/login/', { method: 'POST', headers: json(), body });
        expect(response.status).toBe(200);
        expect(response.body.profile.username).toBe('ann');
        const reversed = `{"username":"ann","password":${JSON.stringify(PASSWORD)},"password":1}`;
        expect(
          (await send(server.url, '/api/v1/login/', { method: 'POST', headers: json(), body: reversed }))
            .status,
        ).toBe(400);
      });
    },
  );
}
