/**
 * Logs (ASVS 5.0 16.x and the OWASP logging cheat sheet, contract 2): a full scenario of password
 * logins (success, wrong password, unknown user, disabled account), a password change (wrong and
 * right current password), logouts, SSO logins against the real OpenID provider (with PKCE and a
 * refresh token), SSO failures (bad nonce, replayed code, wrong code_verifier), an SSO logout with
 * token revocation, a back-channel logout (valid and forged), at LOG_LEVEL=trace. Every line the
 * service wrote is JSON, every request line has a request_id, and no password, session id,
 * authorization code, ID/access/refresh token, nonce, code_verifier, logout token, client secret or
 * encryption key appears in any line, nor (the ID token aside) in any column of the database.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nonce as newNonce, ProviderTap, REDIRECT_URI, ssoEnv } from '../fixtures/sso/harness.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import {
  decodeJwtPayload,
  pkceChallenge,
  startTestProvider,
  type TestProvider,
  tamperSignature,
} from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, type TestServer } from '../support/test-server.js';
import { dumpDatabaseText, type RawResponse, send } from './support.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'Another Secret Passphrase 42';
const WRONG_PASSWORDS = ['Wrong-Password-Alpha-1', 'Wrong-Password-Bravo-2', 'Wrong-Password-Charlie-3'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`log hygiene over a full scenario [${store}]`, () => {
    const encryptionKey = randomBytes(32).toString('base64');
    let tp: TestProvider;
    let tap: ProviderTap;
    let server: TestServer;
    /** Every secret the scenario handled, by kind. */
    const secrets = new Map<string, Set<string>>();
    let requestsSent = 0;

    const remember = (kind: string, value: string | undefined) => {
      if (!value) return;
      const set = secrets.get(kind) ?? new Set<string>();
      set.add(value);
      secrets.set(kind, set);
    };

    async function call(path: string, options: Parameters<typeof send>[2] = {}): Promise<RawResponse> {
      requestsSent += 1;
      const response = await send(server.url, path, options);
      for (const line of response.setCookies) {
        const value = /^sessionid=([^;]*)/.exec(line)?.[1];
        remember('session id', value);
      }
      return response;
    }

    const json = (path: string, body: unknown, cookie?: string) =>
      call(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie: `sessionid=${cookie}` } : {}) },
        body: JSON.stringify(body),
      });

    const cookieOf = (response: RawResponse) => /^sessionid=([^;]+)/.exec(response.setCookies[0] ?? '')?.[1];

    /** An authorization code from the provider's own endpoints (every secret of it remembered). */
    async function code(options: { nonce: string; verifier?: string; scope?: string }): Promise<string> {
      remember('nonce', options.nonce);
      remember('code_verifier', options.verifier);
      const issued = await tp.issueCode({
        accountId: 'gina',
        nonce: options.nonce,
        redirectUri: REDIRECT_URI,
        scope: options.scope ?? 'openid offline_access',
        ...(options.verifier ? { codeChallenge: pkceChallenge(options.verifier) } : {}),
      });
      remember('authorization code', issued.code);
      return issued.code;
    }

    beforeAll(async () => {
      tp = await startTestProvider({ accounts: { gina: { preferred_username: 'gina', groups: ['g1'] } } });
      tap = new ProviderTap(() => tp.issuer);
      server = await startTestServer({
        store,
        env: ssoEnv(tp, { TOKEN_ENCRYPTION_KEY: encryptionKey, LOG_LEVEL: 'trace' }),
        oidcFetch: tap.fetch,
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
      remember('password', PASSWORD);
      remember('password', NEW_PASSWORD);
      for (const wrong of WRONG_PASSWORDS) remember('password', wrong);
      remember('client secret', tp.clients.gatehouse.clientSecret);
      remember('encryption key', encryptionKey);
      remember('encryption key', Buffer.from(encryptionKey, 'base64').toString('hex'));
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    it('runs the scenario: password logins, password change, logouts, SSO logins and logouts, failures', async () => {
      // Password logins: success, wrong password, unknown user, disabled account, a made-up cookie.
      const ann = await json('/api/v1/login/', { username: 'ann', password: PASSWORD });
      expect(ann.status).toBe(200);
      expect((await json('/api/v1/login/', { username: 'ann', password: WRONG_PASSWORDS[0] })).status).toBe(
        401,
      );
      expect(
        (await json('/api/v1/login/', { username: 'nobody', password: WRONG_PASSWORDS[1] })).status,
      ).toBe(401);
      expect((await json('/api/v1/login/', { username: 'dis', password: PASSWORD })).status).toBe(401);
      const madeUp = randomBytes(32).toString('base64url');
      remember('session id', madeUp);
      const again = await json('/api/v1/login/', { username: 'ann', password: PASSWORD }, madeUp);
      expect(again.status).toBe(200);
      // A secret in a query string is not logged either (the request line logs the path only).
      expect(
        (
          await call(`/api/v1/session/?password=${encodeURIComponent(PASSWORD)}`, {
            headers: { cookie: `sessionid=${cookieOf(ann)}` },
          })
        ).status,
      ).toBe(200);
      expect(
        (await call('/api/v1/session/', { headers: { authorization: `Bearer ${madeUp}` } })).status,
      ).toBe(401);

      // Password change: wrong current password, then the right one (a new session id).
      expect(
        (
          await json(
            '/api/v1/password/',
            { old_password: WRONG_PASSWORDS[2], new_password: NEW_PASSWORD },
            cookieOf(ann),
          )
        ).status,
      ).toBe(403);
      const changed = await json(
        '/api/v1/password/',
        { old_password: PASSWORD, new_password: NEW_PASSWORD },
        cookieOf(ann),
      );
      expect(changed.status).toBe(200);
      expect((await json('/api/v1/logout/', {}, cookieOf(changed))).status).toBe(200);
      expect((await json('/api/v1/logout/', {}, cookieOf(again))).status).toBe(200);

      // SSO login with PKCE and a refresh token, then the session, then an SSO logout (revocation).
      const verifier = randomBytes(32).toString('base64url');
      const nonce = newNonce();
      const ssoCode = await code({ nonce, verifier });
      const sso = await json(
        '/api/v1/openid/login/',
        { nonce, authorization_code: ssoCode, redirect_uri: REDIRECT_URI, code_verifier: verifier },
        madeUp,
      );
      expect(sso.status).toBe(200);
      expect(tap.lastTokens.refresh_token).toBeTruthy();
      // The made-up cookie sent with the SSO login is not adopted (fixation).
      expect(cookieOf(sso)).not.toBe(madeUp);
      expect((await call('/api/v1/session/', { headers: { cookie: `sessionid=${madeUp}` } })).status).toBe(
        401,
      );
      expect(
        (await call('/api/v1/session/', { headers: { cookie: `sessionid=${cookieOf(sso)}` } })).status,
      ).toBe(200);

      // SSO failures: a replayed code, a nonce that differs, a wrong code_verifier.
      expect(
        (
          await json('/api/v1/openid/login/', {
            nonce,
            authorization_code: ssoCode,
            redirect_uri: REDIRECT_URI,
            code_verifier: verifier,
          })
        ).body.code,
      ).toBe('SSO_REFUSED');
      const otherNonce = newNonce();
      remember('nonce', otherNonce);
      const badNonce = await json('/api/v1/openid/login/', {
        nonce: otherNonce,
        authorization_code: await code({ nonce: newNonce() }),
        redirect_uri: REDIRECT_URI,
      });
      expect(badNonce.body.code).toBe('SSO_INVALID');
      const wrongVerifier = randomBytes(32).toString('base64url');
      remember('code_verifier', wrongVerifier);
      const pkceNonce = newNonce();
      const pkce = await json('/api/v1/openid/login/', {
        nonce: pkceNonce,
        authorization_code: await code({ nonce: pkceNonce, verifier: randomBytes(32).toString('base64url') }),
        redirect_uri: REDIRECT_URI,
        code_verifier: wrongVerifier,
      });
      expect(pkce.body.code).toBe('SSO_REFUSED');

      const ssoLogout = await json('/api/v1/openid/logout/', {}, cookieOf(sso));
      expect(ssoLogout.status).toBe(200);

      // A second SSO session, ended by a back-channel logout the provider sends (and a forged one).
      const secondNonce = newNonce();
      const second = await json('/api/v1/openid/login/', {
        nonce: secondNonce,
        authorization_code: await code({ nonce: secondNonce }),
        redirect_uri: REDIRECT_URI,
      });
      expect(second.status).toBe(200);
      const sid = decodeJwtPayload(tap.lastTokens.id_token!).sid as string;
      await tp.sendBackchannelLogout({ sub: 'gina', sid });
      const logoutToken = tp.capturedLogoutTokens.at(-1)!;
      remember('logout token', logoutToken);
      const forged = tamperSignature(tp.signLogoutToken({ sub: 'gina', sid }));
      remember('logout token', forged);
      const form = (token: string) =>
        call('/api/v1/openid/backchannel-logout/', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ logout_token: token }).toString(),
        });
      expect((await form(forged)).status).toBe(400);
      expect((await form(logoutToken)).status).toBe(200);
      expect(
        (await call('/api/v1/session/', { headers: { cookie: `sessionid=${cookieOf(second)}` } })).status,
      ).toBe(401);

      // Every token the provider handed Gatehouse, the failed logins' included.
      expect(tap.tokenResponses.length).toBeGreaterThanOrEqual(3);
      for (const response of tap.tokenResponses) {
        remember('ID token', response.id_token);
        remember('access token', response.access_token);
        remember('refresh token', response.refresh_token);
      }
      for (const kind of [
        'password',
        'session id',
        'authorization code',
        'ID token',
        'access token',
        'refresh token',
        'nonce',
        'code_verifier',
        'client secret',
        'logout token',
      ]) {
        expect(secrets.get(kind)?.size ?? 0, kind).toBeGreaterThan(0);
      }
    }, 60_000);

    it('wrote only JSON lines, each request line with its request_id', () => {
      expect(server.rawLogs.length).toBeGreaterThan(requestsSent);
      for (const line of server.rawLogs) expect(() => JSON.parse(line), line).not.toThrow();
      expect(server.logs).toHaveLength(server.rawLogs.length);
      for (const line of server.logs) {
        expect(line).toMatchObject({
          level: expect.any(Number),
          time: expect.any(Number),
          msg: expect.any(String),
        });
      }
      const requests = server.logs.filter((line) => line.msg === 'request');
      expect(requests.length).toBe(requestsSent);
      for (const line of requests) {
        expect(line.request_id, JSON.stringify(line)).toMatch(UUID);
        expect(line).toMatchObject({
          method: expect.any(String),
          path: expect.any(String),
          status: expect.any(Number),
        });
      }
      // The scenario's events were logged (so the absence of secrets below means something).
      const events = new Set(server.logs.map((line) => line.event).filter(Boolean));
      for (const event of ['login_succeeded', 'login_failed', 'session_ended', 'password_changed']) {
        expect(events, event).toContain(event);
      }
      // Request ids are unique per request.
      expect(new Set(requests.map((line) => line.request_id)).size).toBe(requests.length);
    });

    it('logged no password, session id, code, token, nonce, code_verifier or secret', () => {
      const logs = server.rawLogs.join('\n');
      const found: string[] = [];
      for (const [kind, values] of secrets) {
        for (const value of values) {
          const forms = [value];
          // A JWT's signature alone (or its header.payload) would still be a leak.
          if (value.split('.').length === 3)
            forms.push(...value.split('.').filter((part) => part.length > 20));
          if (kind === 'session id') forms.push(Buffer.from(value, 'base64url').toString('hex'));
          for (const form of forms) if (logs.includes(form)) found.push(`${kind}: ${form.slice(0, 24)}...`);
        }
      }
      expect(found).toEqual([]);
    });

    it('stores no password, session id, code, access or refresh token, nonce, code_verifier or secret', async () => {
      const database = await dumpDatabaseText(server);
      const found: string[] = [];
      for (const [kind, values] of secrets) {
        // The ID token is kept as the provider logout's id_token_hint (contract 6); it is not a credential.
        if (kind === 'ID token' || kind === 'logout token') continue;
        for (const value of values)
          if (database.includes(value)) found.push(`${kind}: ${value.slice(0, 24)}...`);
      }
      expect(found).toEqual([]);
    });
  });
}
