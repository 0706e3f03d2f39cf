/**
 * `POST /api/v1/openid/login/` over HTTP, against a real oidc-provider: every authorization code
 * is produced by the provider's own endpoints (test-provider's issueCode), on PGlite and on
 * PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closedPort,
  jwtHeader,
  nonce,
  type ProviderTap,
  REDIRECT_URI,
  ssoEnv,
  ssoLogin,
  UNLISTED_REDIRECT_URI,
} from '../fixtures/sso/harness.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import {
  decodeJwtPayload,
  generateSigningKey,
  pkceChallenge,
  signJwt,
  type TestProvider,
  tamperSignature,
} from '../support/oidc/test-provider.js';
import { startTappedSsoServer } from '../support/tapped-sso-server.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const ACCOUNTS = {
  gina: { preferred_username: 'gina', groups: ['g1'], given_name: 'Gina' },
  gail: { preferred_username: 'gail', groups: ['g1'] },
  nameless: { groups: ['g1'] },
  bob: { preferred_username: 'bob', groups: ['g1', 'g2'] },
  stranger: { preferred_username: 'stranger', groups: ['g1'] },
  'gina-elsewhere': { preferred_username: 'gina', groups: ['g9'] },
  eve: { preferred_username: 'eve', groups: ['g1'] },
  // Issue 14, finding 3: look-alikes of gina that must not log in as gina.
  'gina-nbsp': { preferred_username: '\u00a0gina\u3000', groups: ['g1'] },
  'gina-bom': { preferred_username: '\ufeffgina', groups: ['g1'] },
  'gina-junk-groups': { preferred_username: 'gina', groups: ['g1', 5, null, ['g2'], {}] },
  // Issue 11, finding 2: the canonical form matches: fullwidth and folded case are gina's account.
  'hana-fullwidth': { preferred_username: 'ＨＡＮＡ', groups: ['g1'] },
  // Issue 11, finding 6: provider accounts (other subs) claiming the usernames of bound users.
  ida: { preferred_username: 'ida', groups: ['g1'] },
  kay: { preferred_username: 'kay', groups: ['g1'] },
  'ida-impostor': { preferred_username: 'ida', groups: ['g1'] },
};

async function seedDirectory(server: TestServer): Promise<void> {
  await seedUser(server, {
    username: 'gina',
    userLevel: 8,
    tenantId: 't1',
    groupId: 'g1',
    firstName: 'Gina',
  });
  await seedUser(server, { username: 'gail', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'hana', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'ida', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'jo', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'kay', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'bob', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'eve', userLevel: 0, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'gina-g9', userLevel: 8, tenantId: 't1', groupId: 'g9' });
}

function expectProblem(
  response: { status: number; headers: Headers; body: { code?: unknown } | undefined; setCookies: string[] },
  status: number,
  code: string,
) {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.setCookies.filter((line) => /^sessionid=[^;]/.test(line))).toEqual([]);
}

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`SSO login over HTTP [${store}]`, () => {
    let tp: TestProvider;
    let tap: ProviderTap;
    let server: TestServer;

    beforeAll(async () => {
      ({ tp, tap, server } = await startTappedSsoServer({
        provider: { redirectUris: [REDIRECT_URI, UNLISTED_REDIRECT_URI], accounts: ACCOUNTS },
        store,
      }));
      await seedDirectory(server);
    });

    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    afterEach(() => {
      tap.reset();
      tp.stall(null);
    });

    it('logs a group admin in: ids {tenant_id, group_id}, profile, cookie, then GET /session/', async () => {
      const client = new TestClient(server.url);
      const first = await ssoLogin(client, tp, { accountId: 'gina' });

      expect(first.status).toBe(200);
      expect(first.body.ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1' });
      expect(first.body.profile).toMatchObject({
        user_level: 8,
        is_first_login: true,
        username: 'gina',
        first_name: 'Gina',
      });
      const cookie = first.setCookies.find((line) => line.startsWith('sessionid='));
      expect(cookie).toMatch(/^sessionid=[A-Za-z0-9_-]{43}; /);
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('Secure');
      expect(cookie).toContain('SameSite=Lax');
      expect(first.text).not.toContain(first.code);

      const session = await client.get('/api/v1/session/');
      expect(session.status).toBe(200);
      expect(session.body.ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1' });
      expect(session.body.profile).toMatchObject({ user_level: 8, username: 'gina' });

      const second = await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' });
      expect(second.status).toBe(200);
      expect(second.body.profile).toMatchObject({ is_first_login: false, username: 'gina' });
    });

    it('refuses a nonce that differs from the one of step 1 with 401 SSO_INVALID', async () => {
      const response = await ssoLogin(new TestClient(server.url), tp, {
        accountId: 'gina',
        loginNonce: nonce(),
      });
      expectProblem(response, 401, 'SSO_INVALID');
      expect(response.text).not.toContain(response.code);
    });

    it('refuses an ID token whose signature was altered with SSO_INVALID', async () => {
      tap.rewriteToken = (body) => ({ ...body, id_token: tamperSignature(body.id_token!) });
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' }),
        401,
        'SSO_INVALID',
      );
    });

    it('refuses an ID token signed with a foreign key, under its own or the provider kid, with SSO_INVALID', async () => {
      const foreign = generateSigningKey('RS256');
      for (const key of [foreign, { ...foreign, kid: tp.signingKey.kid }]) {
        tap.rewriteToken = (body) => ({
          ...body,
          id_token: signJwt({}, decodeJwtPayload(body.id_token!), key),
        });
        expectProblem(
          await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' }),
          401,
          'SSO_INVALID',
        );
      }
    });

    it('refuses an ID token for another audience (signed by the provider key) with SSO_INVALID', async () => {
      tap.rewriteToken = (body) => ({
        ...body,
        id_token: signJwt({}, { ...decodeJwtPayload(body.id_token!), aud: 'other-app' }, tp.signingKey),
      });
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' }),
        401,
        'SSO_INVALID',
      );
    });

    it.each<[string, (header: Record<string, unknown>, claims: Record<string, unknown>) => [object, object]]>(
      [
        ['an azp naming another client beside a single aud', (h, c) => [h, { ...c, azp: 'other-app' }]],
        ['a header typ logout+jwt', (h, c) => [{ ...h, typ: 'logout+jwt' }, c]],
        ['a header typ at+jwt', (h, c) => [{ ...h, typ: 'at+jwt' }, c]],
        ['a header typ application/at+jwt', (h, c) => [{ ...h, typ: 'application/at+jwt' }, c]],
        ['b64 false without crit', (h, c) => [{ ...h, b64: false }, c]],
        ['a sub of 256 characters', (h, c) => [h, { ...c, sub: 's'.repeat(256) }]],
        ['a sid of 256 characters', (h, c) => [h, { ...c, sid: 's'.repeat(256) }]],
      ],
    )(
      'refuses an ID token with %s, signed by the provider, with SSO_INVALID (issue 14, finding 8)',
      async (_label, change) => {
        tap.rewriteToken = (body) => {
          const [header, claims] = change({ typ: 'JWT' }, decodeJwtPayload(body.id_token!));
          return {
            ...body,
            id_token: signJwt(
              header as Record<string, unknown>,
              claims as Record<string, unknown>,
              tp.signingKey,
            ),
          };
        };
        expectProblem(
          await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' }),
          401,
          'SSO_INVALID',
        );
      },
    );

    it('accepts an ID token re-signed with typ JWT, an azp naming this client, and a sub of 255 characters', async () => {
      tap.rewriteToken = (body) => {
        const claims = decodeJwtPayload(body.id_token!);
        return {
          ...body,
          id_token: signJwt(
            { typ: 'JWT' },
            { ...claims, azp: claims.aud, sub: 's'.repeat(255) },
            tp.signingKey,
          ),
        };
      };
      const response = await ssoLogin(new TestClient(server.url), tp, { accountId: 'kay' });
      expect(response.status).toBe(200);
    });

    it('refuses a token endpoint answer over 256 KB with SSO_INVALID, and takes one just under (issue 14, finding 9)', async () => {
      tap.rewriteToken = (body) => ({ ...body, access_token: 'a'.repeat(256 * 1024) });
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' }),
        401,
        'SSO_INVALID',
      );
      tap.rewriteToken = (body) => ({ ...body, access_token: 'a'.repeat(200 * 1024) });
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' })).status).toBe(200);
    });

    it('refuses a replayed authorization code with SSO_REFUSED', async () => {
      const sent = nonce();
      const { code } = await tp.issueCode({ accountId: 'gina', nonce: sent, redirectUri: REDIRECT_URI });
      const body = { nonce: sent, authorization_code: code, redirect_uri: REDIRECT_URI };
      expect((await new TestClient(server.url).post('/api/v1/openid/login/', body)).status).toBe(200);
      const replay = await new TestClient(server.url).post('/api/v1/openid/login/', body);
      expectProblem(replay, 401, 'SSO_REFUSED');
      expect(replay.text).not.toContain(code);
    });

    it('refuses tokens without a username with SSO_INVALID_USERNAME', async () => {
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'nameless' }),
        401,
        'SSO_INVALID_USERNAME',
      );
    });

    it('refuses tokens with two groups with SSO_MULTI_GROUPS', async () => {
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'bob' }),
        401,
        'SSO_MULTI_GROUPS',
      );
    });

    it('refuses an unknown user, and a known username in another group, with SSO_INVALID_GROUPID_AND_USERNAME', async () => {
      for (const accountId of ['stranger', 'gina-elsewhere']) {
        expectProblem(
          await ssoLogin(new TestClient(server.url), tp, { accountId }),
          401,
          'SSO_INVALID_GROUPID_AND_USERNAME',
        );
      }
    });

    it('refuses a username wrapped in Unicode white space or a BOM with SSO_INVALID_USERNAME, not as gina', async () => {
      for (const accountId of ['gina-nbsp', 'gina-bom']) {
        expectProblem(
          await ssoLogin(new TestClient(server.url), tp, { accountId }),
          401,
          'SSO_INVALID_USERNAME',
        );
      }
    });

    it('refuses a group claim with non-string entries with SSO_INVALID_GROUPID_AND_USERNAME', async () => {
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina-junk-groups' }),
        401,
        'SSO_INVALID_GROUPID_AND_USERNAME',
      );
    });

    it('matches the username under its canonical form (fullwidth, any case)', async () => {
      const response = await ssoLogin(new TestClient(server.url), tp, { accountId: 'hana-fullwidth' });
      expect(response.status).toBe(200);
      expect(response.body.profile.username).toBe('hana');
    });

    it('binds a user to the provider account of its first SSO login; another sub is refused until an administrator resets it (issue 11, finding 6)', async () => {
      const users = server.gatehouse.store.users;
      const ida = (await users.findByUsername('ida'))!;
      expect(ida.ssoIdentity).toBeNull();
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'ida' })).status).toBe(200);
      expect((await users.findByUsername('ida'))!.ssoIdentity).toEqual({
        provider: 'default',
        issuer: tp.issuer,
        subject: 'ida',
      });
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'ida' })).status).toBe(200);

      // Same username claim, another provider account: refused with the failed-match code.
      const impostor = await ssoLogin(new TestClient(server.url), tp, { accountId: 'ida-impostor' });
      expectProblem(impostor, 401, 'SSO_INVALID_GROUPID_AND_USERNAME');
      const trail = await server.gatehouse.store.audit.listForUser(ida.userId, { limit: 100 });
      expect(trail.some((event) => event.reason === 'sso_account_mismatch')).toBe(true);

      // One provider account, one user: ida's account cannot be bound to jo as well.
      const jo = (await users.findByUsername('jo'))!;
      expect(
        await users.bindProviderAccount(jo.userId, {
          provider: 'default',
          issuer: tp.issuer,
          subject: 'ida',
        }),
      ).toBe('refused');

      // The administrator resets the binding (gatehouse user reset-sso): the next SSO login binds again.
      expect(await users.clearProviderAccount(ida.userId)).toBe(true);
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'ida-impostor' })).status).toBe(
        200,
      );
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'ida' }),
        401,
        'SSO_INVALID_GROUPID_AND_USERNAME',
      );
    });

    it('refuses a user whose level is not in SSO_USER_LEVELS (end user, default [8])', async () => {
      const logged = server.logs.length;
      expectProblem(
        await ssoLogin(new TestClient(server.url), tp, { accountId: 'eve' }),
        401,
        'SSO_INVALID_GROUPID_AND_USERNAME',
      );
      // One login_failed event, carrying the policy's reason and the user.
      const failures = server.logs.slice(logged).filter((line) => line.event === 'login_failed');
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ method: 'sso', userId: expect.any(String) });
    });

    it('keeps working when the provider rotates its signing key between two logins', async () => {
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'gail' })).status).toBe(200);
      const oldKid = jwtHeader(tap.lastTokens.id_token!).kid;
      // Anyone may post a forged logout token under a made-up kid just before the rotation; it
      // must not hold back the JWKS refetch the next login needs.
      const forged = await new TestClient(server.url).request('POST', '/api/v1/openid/backchannel-logout/', {
        body: new URLSearchParams({
          logout_token: tp.signLogoutToken({ sub: 'gail' }, { key: generateSigningKey('RS256') }),
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(forged.status).toBe(400);
      const rotated = await tp.rotateKeys();
      expect(rotated.kid).not.toBe(oldKid);

      const client = new TestClient(server.url);
      const after = await ssoLogin(client, tp, { accountId: 'gail' });
      expect(after.status).toBe(200);
      expect(jwtHeader(tap.lastTokens.id_token!).kid).toBe(rotated.kid);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
    });

    it('sends the PKCE code_verifier: the right one logs in, a wrong one is SSO_REFUSED', async () => {
      const verifier = randomBytes(32).toString('base64url');
      const codeChallenge = pkceChallenge(verifier);
      const ok = await ssoLogin(new TestClient(server.url), tp, {
        accountId: 'gina',
        codeChallenge,
        codeVerifier: verifier,
      });
      expect(ok.status).toBe(200);
      const wrong = await ssoLogin(new TestClient(server.url), tp, {
        accountId: 'gina',
        codeChallenge,
        codeVerifier: randomBytes(32).toString('base64url'),
      });
      expectProblem(wrong, 401, 'SSO_REFUSED');
    });

    it('answers 400 INVALID_REQUEST for a redirect_uri not in OIDC_REDIRECT_URIS, before calling the provider', async () => {
      const before = tap.tokenResponses.length;
      const response = await ssoLogin(new TestClient(server.url), tp, {
        accountId: 'gina',
        redirectUri: UNLISTED_REDIRECT_URI,
      });
      expectProblem(response, 400, 'INVALID_REQUEST');
      expect(response.body.errors).toEqual([{ path: 'redirect_uri', message: 'not allowed' }]);
      expect(tap.tokenResponses.length).toBe(before);
    });

    it('answers 400 INVALID_REQUEST for a body without nonce', async () => {
      const response = await new TestClient(server.url).post('/api/v1/openid/login/', {
        authorization_code: 'x',
        redirect_uri: REDIRECT_URI,
      });
      expectProblem(response, 400, 'INVALID_REQUEST');
    });

    it('revokes a session cookie sent with the SSO login (fixation defence)', async () => {
      const client = new TestClient(server.url);
      expect((await ssoLogin(client, tp, { accountId: 'gina' })).status).toBe(200);
      const presented = client.session!;

      expect((await ssoLogin(client, tp, { accountId: 'gina' })).status).toBe(200);
      const fresh = client.session!;
      expect(fresh).not.toBe(presented);

      const old = await client.get('/api/v1/session/', { cookie: `sessionid=${presented}` });
      expectProblem(old, 401, 'NOT_AUTHENTICATED');
      expect((await client.get('/api/v1/session/')).status).toBe(200);
    });

    describe('a provider slower than OIDC_TIMEOUT_MS', () => {
      const TIMEOUT_MS = 500;
      let slow: TestServer;
      beforeAll(async () => {
        slow = await startTestServer({ store, env: ssoEnv(tp, { OIDC_TIMEOUT_MS: String(TIMEOUT_MS) }) });
        await seedUser(slow, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
      });
      afterAll(() => slow?.close());

      it('answers 502 SSO_UNREACHABLE within the time-out (plus a margin) when the token endpoint stalls', async () => {
        // Discovery and JWKS first, while the provider is fast.
        expect((await ssoLogin(new TestClient(slow.url), tp, { accountId: 'gina' })).status).toBe(200);
        const sent = nonce();
        const { code } = await tp.issueCode({ accountId: 'gina', nonce: sent, redirectUri: REDIRECT_URI });
        // Stalled for longer than OIDC_TIMEOUT_MS but shorter than its default (5 s): the provider
        // and the service share this event loop, so the time-out's timer fires first, and a service
        // that ignored the setting would get the answer (200). Timer order, not a clock bound.
        tp.stall(TIMEOUT_MS * 4);
        const response = await new TestClient(slow.url).post('/api/v1/openid/login/', {
          nonce: sent,
          authorization_code: code,
          redirect_uri: REDIRECT_URI,
        });
        expectProblem(response, 502, 'SSO_UNREACHABLE');
      });
    });

    describe('a provider whose port is closed', () => {
      let offline: TestServer;
      beforeAll(async () => {
        offline = await startTestServer({
          store,
          env: ssoEnv(tp, { OIDC_ISSUER: `http://127.0.0.1:${await closedPort()}` }),
        });
      });
      afterAll(() => offline?.close());

      it('answers 502 SSO_UNREACHABLE', async () => {
        const response = await new TestClient(offline.url).post('/api/v1/openid/login/', {
          nonce: nonce(),
          authorization_code: 'some-code',
          redirect_uri: REDIRECT_URI,
        });
        expectProblem(response, 502, 'SSO_UNREACHABLE');
      });
    });

    describe('a service without OpenID configuration', () => {
      let bare: TestServer;
      beforeAll(async () => {
        bare = await startTestServer({ store });
      });
      afterAll(() => bare?.close());

      it('answers 404 SSO_NOT_CONFIGURED on every SSO route', async () => {
        const client = new TestClient(bare.url);
        const login = await client.post('/api/v1/openid/login/', {
          nonce: nonce(),
          authorization_code: 'x',
          redirect_uri: REDIRECT_URI,
        });
        expectProblem(login, 404, 'SSO_NOT_CONFIGURED');
        expectProblem(await client.post('/api/v1/openid/logout/', {}), 404, 'SSO_NOT_CONFIGURED');
        const backchannel = await client.request('POST', '/api/v1/openid/backchannel-logout/', {
          body: 'logout_token=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expectProblem(backchannel, 404, 'SSO_NOT_CONFIGURED');
      });
    });
  });
}
