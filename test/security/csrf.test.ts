/**
 * CSRF (ASVS 5.0 3.5.1-3.5.3, contract 3): every state-changing JSON route of the served OpenAPI
 * document refuses the content types an HTML form or a CORS-simple request can send
 * (`application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`), and a request whose
 * `Origin` is untrusted or `null`, or whose `Sec-Fetch-Site` is `cross-site` without a trusted
 * Origin; trusted origins are accepted. Each refused request is one that would have changed
 * state had it been read (a login with the right password, a logout with a live cookie, a
 * password change, an SSO login with a fresh code...), and the users and sessions tables are
 * compared before and after. GET and HEAD change nothing but the documented last-seen
 * bookkeeping. The session cookie is SameSite=Lax by default; no answer grants CORS.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nonce as newNonce, REDIRECT_URI, ssoEnv } from '../fixtures/sso/harness.js';
import { POLICY_TARGETS } from '../support/databases.js';
import { issuePendingSession } from '../support/issued-sessions.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, type TestServer } from '../support/test-server.js';
import {
  CaseCounter,
  concretePath,
  problemViolation,
  type RawResponse,
  type RowSnapshot,
  rowsChanged,
  type ServedOperation,
  send,
  servedOperations,
  snapshotRows,
} from './support.js';

const PASSWORD = 'correct horse battery staple';
const TRUSTED = 'https://portal.example.com';
const FORM_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----csrf',
  'text/plain',
];
const UNTRUSTED_ORIGINS = [
  'https://evil.example',
  'null',
  'https://portal.example.com.evil.example',
  'http://portal.example.com',
  'https://portal.example.com:8443',
  'https://sub.portal.example.com',
];

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function cookieValue(response: RawResponse): string {
  const line = response.setCookies.find((candidate) => /^sessionid=[^;]/.test(candidate));
  expect(line, `a session cookie in ${response.status} ${response.text}`).toBeDefined();
  return line!.slice('sessionid='.length).split(';', 1)[0]!;
}

for (const store of POLICY_TARGETS) {
  describe(`CSRF defences [${store}]`, () => {
    const counter = new CaseCounter(`csrf [${store}]`);
    let tp: TestProvider;
    let server: TestServer;
    let operations: ServedOperation[];
    /** A password session and an SSO session of their own users, plus a second session each. */
    let annToken: string;
    let annOther: string;
    let ginaToken: string;
    /** Ann's login waiting for its second factor: the routes that finish one take only such a session. */
    let annPending: string;

    beforeAll(async () => {
      tp = await startTestProvider({ accounts: { gina: { preferred_username: 'gina', groups: ['g1'] } } });
      server = await startTestServer({
        store,
        env: ssoEnv(tp, { TRUSTED_ORIGINS: TRUSTED, LOGIN_MAX_FAILURES: '1000' }),
      });
      const ann = await seedUser(server, {
        username: 'ann',
        password: PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
      });
      annPending = (await issuePendingSession(server.gatehouse.container, ann)).token;
      await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
      annToken = cookieValue(await jsonPost('/api/v1/login/', { username: 'ann', password: PASSWORD }));
      annOther = cookieValue(await jsonPost('/api/v1/login/', { username: 'ann', password: PASSWORD }));
      ginaToken = cookieValue(await jsonPost('/api/v1/openid/login/', await freshSsoBody()));
      operations = await servedOperations(server);
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    function jsonPost(path: string, json: unknown, headers: Record<string, string> = {}) {
      return send(server.url, path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(json),
      });
    }

    async function freshSsoBody(): Promise<Record<string, string>> {
      const nonce = newNonce();
      const { code } = await tp.issueCode({ accountId: 'gina', nonce, redirectUri: REDIRECT_URI });
      return { nonce, authorization_code: code, redirect_uri: REDIRECT_URI };
    }

    async function handleOf(token: string): Promise<string> {
      return (await server.gatehouse.store.sessions.findByTokenHash(sha256(token)))!.handle;
    }

    /**
     * For each state-changing operation, the request that changes state when accepted: its
     * path, cookie and body. `annOther` is the session an endSession call would end.
     */
    async function effectiveRequest(
      operation: ServedOperation,
    ): Promise<{ path: string; cookie?: string; body?: string }> {
      const path = concretePath(operation.path, () => 'HANDLE');
      switch (operation.operationId) {
        case 'login':
          return { path, body: JSON.stringify({ username: 'ann', password: PASSWORD }) };
        case 'changePassword':
          return {
            path,
            cookie: annToken,
            body: JSON.stringify({ old_password: PASSWORD, new_password: 'a brand new passphrase 1' }),
          };
        case 'ssoLogin':
          return { path, body: JSON.stringify(await freshSsoBody()) };
        case 'verifySecondFactor':
        case 'mfaWebauthnOptions':
          return { path, cookie: annPending, ...(operation.requestType ? { body: '{}' } : {}) };
        case 'ssoLogout':
          return { path, cookie: ginaToken, body: '{}' };
        case 'ssoBackchannelLogout':
          return { path, body: `logout_token=${tp.signLogoutToken({ sub: 'gina', sid: undefined })}` };
        case 'endSession': {
          const handle = await handleOf(annOther);
          return { path: concretePath(operation.path, () => handle), cookie: annToken };
        }
        default:
          // logout, revokeOtherSessions and any later route that takes the session: the live one.
          return { path, cookie: annToken, ...(operation.requestType ? { body: '{}' } : {}) };
      }
    }

    const stateChanging = () => operations.filter((operation) => operation.method !== 'GET');

    async function expectRefused(
      label: string,
      operation: ServedOperation,
      headers: Record<string, string>,
      expected: { status: number; code: string },
      before: RowSnapshot,
    ): Promise<void> {
      const request = await effectiveRequest(operation);
      const response = await send(server.url, request.path, {
        method: operation.method,
        headers: {
          ...(request.cookie ? { cookie: `sessionid=${request.cookie}` } : {}),
          ...headers,
        },
        ...(request.body !== undefined ? { body: request.body } : {}),
      });
      counter.hit(label, `${operation.method} ${operation.path}`, response.status);
      expect(
        { operation: operation.operationId, status: response.status, code: response.body?.code },
        response.text,
      ).toEqual({
        operation: operation.operationId,
        ...expected,
      });
      expect(problemViolation(response, operation.method)).toBeNull();
      expect(response.setCookies.filter((line) => /^sessionid=/.test(line))).toEqual([]);
      expect(
        await rowsChanged(server, before),
        `${operation.operationId} with ${JSON.stringify(headers)}`,
      ).toBeNull();
    }

    it('refuses form, multipart and text/plain bodies on every state-changing JSON route, changing nothing', async () => {
      const before = await snapshotRows(server);
      const jsonRoutes = stateChanging().filter((operation) => operation.requestType === 'application/json');
      expect(jsonRoutes.map((operation) => operation.operationId)).toEqual(
        expect.arrayContaining(['login', 'logout', 'changePassword', 'ssoLogin', 'ssoLogout']),
      );
      for (const operation of jsonRoutes) {
        for (const type of FORM_TYPES) {
          await expectRefused(
            'form content types',
            operation,
            { 'content-type': type },
            { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
            before,
          );
        }
      }
      counter.report('form content types');
      // The requests were effective ones: sent as JSON, each does change state.
      expect((await jsonPost('/api/v1/openid/login/', await freshSsoBody())).status).toBe(200);
    });

    it('refuses an untrusted Origin, Origin: null and Sec-Fetch-Site: cross-site on every state-changing route', async () => {
      const before = await snapshotRows(server);
      const refused = { status: 403, code: 'ORIGIN_REJECTED' };
      for (const operation of stateChanging()) {
        const type: Record<string, string> = operation.requestType
          ? { 'content-type': operation.requestType }
          : {};
        for (const origin of UNTRUSTED_ORIGINS) {
          await expectRefused('untrusted origins', operation, { ...type, origin }, refused, before);
        }
        await expectRefused(
          'untrusted origins',
          operation,
          { ...type, 'sec-fetch-site': 'cross-site' },
          refused,
          before,
        );
        await expectRefused(
          'untrusted origins',
          operation,
          { ...type, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
          refused,
          before,
        );
      }
      counter.report('untrusted origins');
    });

    it('refuses random untrusted origins on a login with the right password (property)', async () => {
      const before = await snapshotRows(server);
      const login = operations.find((operation) => operation.operationId === 'login')!;
      const origin = fc.oneof(
        fc.webUrl({ withQueryParameters: false, withFragments: false }).map((url) => new URL(url).origin),
        fc.webUrl().map((url) => url),
        fc.string({
          unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
          minLength: 1,
          maxLength: 40,
        }),
      );
      await fc.assert(
        fc.asyncProperty(
          origin.filter((value) => value !== TRUSTED && value !== server.url),
          async (value) => {
            await expectRefused(
              'random origins',
              login,
              { 'content-type': 'application/json', origin: value },
              { status: 403, code: 'ORIGIN_REJECTED' },
              before,
            );
          },
        ),
        { numRuns: 150 },
      );
      counter.report('random origins');
    });

    it('accepts the service’s own origin, the trusted origins and same-origin, same-site or user-initiated fetches', async () => {
      const accepted: Array<Record<string, string>> = [
        { origin: server.url },
        { origin: TRUSTED },
        { 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'none' },
        { 'sec-fetch-site': 'cross-site', origin: TRUSTED },
        {},
      ];
      for (const headers of accepted) {
        const response = await jsonPost('/api/v1/login/', { username: 'ann', password: PASSWORD }, headers);
        expect(response.status, JSON.stringify(headers)).toBe(200);
      }
      // Every state-changing route works from the trusted portal.
      const portal = { origin: TRUSTED, 'sec-fetch-site': 'cross-site' };
      const token = cookieValue(
        await jsonPost('/api/v1/login/', { username: 'ann', password: PASSWORD }, portal),
      );
      expect(
        (await send(server.url, '/api/v1/session/', { headers: { ...portal, cookie: `sessionid=${token}` } }))
          .status,
      ).toBe(200);
      const sso = await jsonPost('/api/v1/openid/login/', await freshSsoBody(), portal);
      expect(sso.status).toBe(200);
      expect(
        (await jsonPost('/api/v1/openid/logout/', {}, { ...portal, cookie: `sessionid=${cookieValue(sso)}` }))
          .status,
      ).toBe(200);
      expect(
        (await jsonPost('/api/v1/logout/', {}, { ...portal, cookie: `sessionid=${token}` })).status,
      ).toBe(200);
    });

    it('changes nothing on GET and HEAD, whatever the path, query or cookie', async () => {
      const before = await snapshotRows(server);
      const paths = [
        ...operations.map((operation) => concretePath(operation.path, () => 'x')),
        `/api/v1/login/?username=ann&password=${encodeURIComponent(PASSWORD)}`,
        '/api/v1/logout/',
        '/api/v1/openid/logout/',
        '/api/v1/password/?old_password=a&new_password=b',
        '/api/v1/sessions/revoke-others/',
        '/nowhere',
      ];
      for (const path of paths) {
        for (const method of ['GET', 'HEAD']) {
          for (const cookie of [annToken, ginaToken, undefined]) {
            const response = await send(server.url, path, {
              method,
              headers: cookie ? { cookie: `sessionid=${cookie}` } : {},
            });
            counter.hit('safe methods', `${method} ${path.split('?')[0]}`, response.status);
            expect(response.status, `${method} ${path}`).toBeLessThan(500);
            expect(
              response.setCookies.filter((line) => /^sessionid=/.test(line)),
              `${method} ${path}`,
            ).toEqual([]);
          }
        }
      }
      expect(await rowsChanged(server, before)).toBeNull();
      counter.report('safe methods');
      expect(
        (await send(server.url, '/api/v1/session/', { headers: { cookie: `sessionid=${annToken}` } })).status,
      ).toBe(200);
    });

    it('writes on GET only the documented bookkeeping: last-seen, at most once a minute', async () => {
      const before = await snapshotRows(server);
      server.clock.advanceSeconds(61);
      expect(
        (await send(server.url, '/api/v1/session/', { headers: { cookie: `sessionid=${annToken}` } })).status,
      ).toBe(200);
      const after = await snapshotRows(server);
      const withoutLastSeen = (rows: string[]) =>
        rows.map((row) => {
          const { last_seen_at: _ignored, ...rest } = JSON.parse(row) as Record<string, unknown>;
          return rest;
        });
      expect(after.users).toEqual(before.users);
      expect(withoutLastSeen(after.sessions)).toEqual(withoutLastSeen(before.sessions));
      const changed = after.sessions.filter((row) => !before.sessions.includes(row));
      expect(changed).toHaveLength(1);
      expect(JSON.parse(changed[0]!).token_hash).toBe(sha256(annToken));
    });

    it('sets SameSite=Lax (with HttpOnly and Secure) on every session cookie by default, and grants no CORS', async () => {
      const login = await jsonPost(
        '/api/v1/login/',
        { username: 'ann', password: PASSWORD },
        { origin: 'https://evil.example' },
      );
      expect(login.status).toBe(403);
      const lines: string[] = [];
      const password = await jsonPost('/api/v1/login/', { username: 'ann', password: PASSWORD });
      lines.push(...password.setCookies);
      const sso = await jsonPost('/api/v1/openid/login/', await freshSsoBody());
      lines.push(...sso.setCookies);
      const logout = await jsonPost('/api/v1/logout/', {}, { cookie: `sessionid=${cookieValue(password)}` });
      lines.push(...logout.setCookies);
      // Three session cookies, and the password login's device proof, which is Strict.
      const sessionLines = lines.filter((line) => line.startsWith('sessionid='));
      expect(sessionLines).toHaveLength(3);
      for (const line of sessionLines) {
        expect(line).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
        expect(line).not.toMatch(/Domain=/i);
      }
      const deviceLines = lines.filter((line) => line.startsWith('sessionid_device='));
      expect(deviceLines).toHaveLength(1);
      expect(deviceLines[0]).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
      expect(lines).toHaveLength(4);
      for (const response of [login, password, sso, logout]) {
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
        expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      }
      const preflight = await send(server.url, '/api/v1/login/', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      counter.reportTotal();
    });
  });
}
