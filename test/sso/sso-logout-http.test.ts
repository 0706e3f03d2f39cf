/**
 * `POST /api/v1/openid/logout/` and `POST /api/v1/openid/backchannel-logout/` over HTTP, against a
 * real oidc-provider, on PGlite and on PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { tokenBinding } from '../../src/domain/sso/token-sealer.port.js';
import { nonce, ProviderTap, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import {
  decodeJwtPayload,
  generateSigningKey,
  startTestProvider,
  type TestProvider,
} from '../support/oidc/test-provider.js';
import { startTappedSsoServer } from '../support/tapped-sso-server.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const ACCOUNTS = {
  gina: { preferred_username: 'gina', groups: ['g1'] },
  gail: { preferred_username: 'gail', groups: ['g1'] },
};
const OFFLINE = 'openid profile offline_access';
const PASSWORD = 'a long enough password for ann';

async function seedDirectory(server: TestServer): Promise<void> {
  await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  await seedUser(server, { username: 'gail', userLevel: 8, tenantId: 't1', groupId: 'g1' });
}

function clearsCookie(setCookies: string[]): boolean {
  return setCookies.some((line) => /^sessionid=;/.test(line) && /Max-Age=0/.test(line));
}

async function sessionStatus(server: TestServer, token: string): Promise<number> {
  return (await new TestClient(server.url).get('/api/v1/session/', { cookie: `sessionid=${token}` })).status;
}

function postForm(server: TestServer, body: string, contentType = 'application/x-www-form-urlencoded') {
  return new TestClient(server.url).request('POST', '/api/v1/openid/backchannel-logout/', {
    body,
    headers: { 'content-type': contentType },
  });
}

const form = (logoutToken: string) => new URLSearchParams({ logout_token: logoutToken }).toString();

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`SSO logout over HTTP [${store}]`, () => {
    const encryptionKey = randomBytes(32).toString('base64');
    let tp: TestProvider;
    let tap: ProviderTap;
    let server: TestServer;

    beforeAll(async () => {
      ({ tp, tap, server } = await startTappedSsoServer({
        provider: { accounts: ACCOUNTS },
        store,
        env: { TOKEN_ENCRYPTION_KEY: encryptionKey },
      }));
      await seedDirectory(server);
      await seedUser(server, {
        username: 'ann',
        password: PASSWORD,
        userLevel: 8,
        tenantId: 't1',
        groupId: 'g1',
      });
    });

    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    afterEach(() => tap.reset());

    /** An SSO login with a refresh token; returns the client and the tokens Gatehouse received. */
    async function offlineLogin(accountId = 'gina', target = server, provider = tp) {
      const client = new TestClient(target.url);
      const response = await ssoLogin(client, provider, { accountId, scope: OFFLINE });
      expect(response.status).toBe(200);
      return { client, token: client.session! };
    }

    it('ends the SSO session, revokes refresh and access tokens at the provider, clears the cookie', async () => {
      const { client, token } = await offlineLogin();
      const tokens = tap.lastTokens;
      expect(tokens.refresh_token).toBeTruthy();
      expect(await tp.introspect(tokens.refresh_token!)).toMatchObject({ active: true, sub: 'gina' });
      expect(await tp.introspect(tokens.access_token!)).toMatchObject({ active: true });

      const response = await client.post('/api/v1/openid/logout/', {});

      expect(response.status).toBe(200);
      expect(response.body).toEqual({});
      expect(clearsCookie(response.setCookies)).toBe(true);
      expect(await sessionStatus(server, token)).toBe(401);
      expect(await tp.introspect(tokens.refresh_token!)).toEqual({ active: false });
      expect(await tp.introspect(tokens.access_token!)).toEqual({ active: false });
    });

    it('keeps the provider tokens encrypted at rest (TOKEN_ENCRYPTION_KEY)', async () => {
      await offlineLogin('gail');
      const tokens = tap.lastTokens;
      // What the session store holds, whichever it is (the stored form: ending the session returns it).
      const { store } = server;
      const gail = (await store.users.findByUsername('gail'))!;
      const listed = await store.sessions.listForUser(gail.userId);
      expect(listed).toHaveLength(1);
      const stored = (await store.sessions.deleteByTokenHash(listed[0]!.tokenHash))!;
      const row = {
        sso_refresh_token: stored.sso!.refreshTokenSealed,
        sso_access_token: stored.sso!.accessTokenSealed,
        sso_issuer: stored.sso!.issuer,
        sso_subject: stored.sso!.subject,
        sso_sid: stored.sso!.sid,
      };
      expect(row.sso_refresh_token).toBeTruthy();
      expect(row.sso_refresh_token).not.toBe(tokens.refresh_token);
      expect(row.sso_refresh_token).not.toContain(tokens.refresh_token!);
      expect(row.sso_access_token).not.toContain(tokens.access_token!);
      const sealer = AesTokenSealer.fromBase64(encryptionKey);
      const ref = { issuer: row.sso_issuer!, subject: row.sso_subject!, sid: row.sso_sid };
      expect(sealer.open(row.sso_refresh_token!, tokenBinding('refresh_token', ref))).toBe(
        tokens.refresh_token,
      );
      expect(sealer.open(row.sso_access_token!, tokenBinding('access_token', ref))).toBe(tokens.access_token);
      expect(
        AesTokenSealer.random().open(row.sso_refresh_token!, tokenBinding('refresh_token', ref)),
      ).toBeNull();
      // Bound to its slot and its session (issue 11, finding 11): moved elsewhere, it opens as nothing.
      expect(sealer.open(row.sso_refresh_token!, tokenBinding('access_token', ref))).toBeNull();
      expect(
        sealer.open(row.sso_refresh_token!, tokenBinding('refresh_token', { ...ref, subject: 'hana' })),
      ).toBeNull();
      expect(
        sealer.open(row.sso_refresh_token!, tokenBinding('refresh_token', { ...ref, sid: 'another' })),
      ).toBeNull();
      // What a back-channel logout needs is kept in clear.
      expect(row).toMatchObject({
        sso_issuer: tp.issuer,
        sso_subject: 'gail',
        sso_sid: decodeJwtPayload(tokens.id_token!).sid,
      });
    });

    it('answers 200 {} on a password session after ending it locally, without calling the provider', async () => {
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
      const token = client.session!;
      const revocations = tap.revocations;

      const response = await client.post('/api/v1/openid/logout/', {});

      expect(response.status).toBe(200);
      expect(response.body).toEqual({});
      expect(clearsCookie(response.setCookies)).toBe(true);
      expect(await sessionStatus(server, token)).toBe(401);
      expect(tap.revocations).toBe(revocations);
    });

    it('answers 200 {} without any session', async () => {
      const response = await new TestClient(server.url).post('/api/v1/openid/logout/', {});
      expect(response.status).toBe(200);
      expect(response.body).toEqual({});
    });

    it('answers 401 SSO_REFUSED when the provider refuses the revocation; the local session is gone', async () => {
      const { client, token } = await offlineLogin();
      tap.replaceRevocation = () =>
        new Response(JSON.stringify({ error: 'invalid_client', error_description: 'no' }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        });

      const response = await client.post('/api/v1/openid/logout/', {});

      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SSO_REFUSED');
      expect(clearsCookie(response.setCookies)).toBe(true);
      expect(await sessionStatus(server, token)).toBe(401);
      expect(response.text).not.toContain(tap.lastTokens.refresh_token!);
    });

    describe('when the provider is down at logout', () => {
      let lonely: TestProvider;
      let lonelyServer: TestServer;
      beforeAll(async () => {
        lonely = await startTestProvider({ accounts: ACCOUNTS });
        lonelyServer = await startTestServer({ store, env: ssoEnv(lonely) });
        await seedDirectory(lonelyServer);
      });
      afterAll(async () => {
        await lonelyServer?.close();
        await lonely?.close();
      });

      it('answers 502 SSO_UNREACHABLE, yet the local session is gone and the cookie cleared', async () => {
        const { client, token } = await offlineLogin('gina', lonelyServer, lonely);
        await lonely.close();

        const response = await client.post('/api/v1/openid/logout/', {});

        expect(response.status).toBe(502);
        expect(response.body.code).toBe('SSO_UNREACHABLE');
        expect(clearsCookie(response.setCookies)).toBe(true);
        expect(await sessionStatus(lonelyServer, token)).toBe(401);
      });
    });

    describe('an interpreter with endProviderSession (SSO_TOKEN_INTERPRETER)', () => {
      type Probe = { mode: 'ok' | 'refuse' | 'crash'; calls: Array<Record<string, string>> };
      const probe = (): Probe => {
        const holder = globalThis as { __gatehouseEndSessionProbe?: Probe };
        holder.__gatehouseEndSessionProbe ??= { mode: 'ok', calls: [] };
        return holder.__gatehouseEndSessionProbe;
      };
      let custom: TestServer;
      let customTap: ProviderTap;
      beforeAll(async () => {
        customTap = new ProviderTap(() => tp.issuer);
        custom = await startTestServer({
          store,
          env: ssoEnv(tp, {
            TOKEN_ENCRYPTION_KEY: encryptionKey,
            SSO_TOKEN_INTERPRETER: './test/fixtures/end-session-interpreter',
          }),
          oidcFetch: customTap.fetch,
        });
        await seedDirectory(custom);
      });
      afterAll(() => custom?.close());
      afterEach(() => {
        probe().mode = 'ok';
        probe().calls.length = 0;
      });

      it('calls it after the revocation, with the ID token and the decrypted tokens', async () => {
        const { client, token } = await offlineLogin('gina', custom);
        const tokens = customTap.lastTokens;
        const response = await client.post('/api/v1/openid/logout/', {});
        expect(response.status).toBe(200);
        expect(probe().calls).toEqual([
          { idToken: tokens.id_token, accessToken: tokens.access_token, refreshToken: tokens.refresh_token },
        ]);
        expect(await tp.introspect(tokens.refresh_token!)).toEqual({ active: false });
        expect(await sessionStatus(custom, token)).toBe(401);
      });

      it.each([
        ['refuses (SsoInterpretationError SSO_REFUSED)', 401, 'SSO_REFUSED', 'refuse'],
        ['fails with its own error', 502, 'SSO_UNREACHABLE', 'crash'],
      ] as const)('when it %s: %i %s, the local session is gone', async (_label, status, code, mode) => {
        const { client, token } = await offlineLogin('gina', custom);
        probe().mode = mode;
        const response = await client.post('/api/v1/openid/logout/', {});
        expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
        expect(clearsCookie(response.setCookies)).toBe(true);
        expect(await sessionStatus(custom, token)).toBe(401);
      });
    });

    describe('back-channel logout', () => {
      /** Three live sessions: gina twice (two provider sessions, two sids), gail once. */
      async function threeSessions() {
        const ginaOne = await offlineLogin('gina');
        const sidOne = decodeJwtPayload(tap.lastTokens.id_token!).sid as string;
        const ginaTwo = await offlineLogin('gina');
        const sidTwo = decodeJwtPayload(tap.lastTokens.id_token!).sid as string;
        const gail = await offlineLogin('gail');
        expect(sidOne).toBeTruthy();
        expect(sidTwo).not.toBe(sidOne);
        return { ginaOne: ginaOne.token, ginaTwo: ginaTwo.token, gail: gail.token, sidOne };
      }

      const statuses = async (tokens: string[]) =>
        Promise.all(tokens.map((token) => sessionStatus(server, token)));

      it('a logout token sent by the provider ends the sessions of that sid, and no other', async () => {
        const s = await threeSessions();
        await tp.sendBackchannelLogout({ sub: 'gina', sid: s.sidOne });
        const logoutToken = tp.capturedLogoutTokens.at(-1)!;
        expect(decodeJwtPayload(logoutToken)).toMatchObject({ sub: 'gina', sid: s.sidOne });

        const response = await postForm(server, form(logoutToken));

        expect(response.status).toBe(200);
        expect(await statuses([s.ginaOne, s.ginaTwo, s.gail])).toEqual([401, 200, 200]);
      });

      it('a logout token without sid ends every session of that sub, and no other', async () => {
        const s = await threeSessions();
        await tp.sendBackchannelLogout({ sub: 'gina' });
        const logoutToken = tp.capturedLogoutTokens.at(-1)!;
        expect(decodeJwtPayload(logoutToken).sid).toBeUndefined();

        const response = await postForm(server, form(logoutToken));

        expect(response.status).toBe(200);
        expect(await statuses([s.ginaOne, s.ginaTwo, s.gail])).toEqual([401, 401, 200]);
      });

      it('refuses a logout token posted a second time: the session made since stays (issue 11, finding 10)', async () => {
        const s = await threeSessions();
        const token = tp.signLogoutToken({ sub: 'gina' });
        expect((await postForm(server, form(token))).status).toBe(200);
        expect(await statuses([s.ginaOne, s.ginaTwo, s.gail])).toEqual([401, 401, 200]);
        const later = await offlineLogin('gina');
        const replayed = await postForm(server, form(token));
        expect(replayed.status).toBe(400);
        expect(replayed.body.code).toBe('INVALID_REQUEST');
        expect(await sessionStatus(server, later.token)).toBe(200);
      });

      it('a logout token naming both a sid and a sub ends a session only when both match (issue 14, finding 8)', async () => {
        const s = await threeSessions();
        // gail's sub with gina's sid: no session has both.
        const mixed = tp.signLogoutToken({ sub: 'gail', sid: s.sidOne });
        expect((await postForm(server, form(mixed))).status).toBe(200);
        expect(await statuses([s.ginaOne, s.ginaTwo, s.gail])).toEqual([200, 200, 200]);
      });

      const now = () => Math.floor(Date.now() / 1000);
      it.each<[string, (sid: string) => string]>([
        ['malformed', () => 'not-a-jwt'],
        [
          'signed with a foreign key',
          (sid) => tp.signLogoutToken({ sub: 'gina', sid }, { key: generateSigningKey() }),
        ],
        ['carrying a nonce', (sid) => tp.signLogoutToken({ sub: 'gina', sid, nonce: nonce() })],
        ['stale', (sid) => tp.signLogoutToken({ sub: 'gina', sid, iat: now() - 600, exp: undefined })],
        ['for another audience', (sid) => tp.signLogoutToken({ sub: 'gina', sid, aud: 'other-app' })],
      ])('a logout token %s is answered 400 and ends no session', async (_label, make) => {
        const s = await threeSessions();
        const response = await postForm(server, form(make(s.sidOne)));
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('INVALID_REQUEST');
        expect(await statuses([s.ginaOne, s.ginaTwo, s.gail])).toEqual([200, 200, 200]);
      });

      it('answers 415 to a body that is not a form, and 400 to a form without logout_token', async () => {
        const s = await threeSessions();
        const json = await postForm(
          server,
          JSON.stringify({ logout_token: tp.signLogoutToken({ sub: 'gina', sid: s.sidOne }) }),
          'application/json',
        );
        expect(json.status).toBe(415);
        expect(json.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
        const empty = await postForm(server, 'other=1');
        expect(empty.status).toBe(400);
        expect(await statuses([s.ginaOne, s.ginaTwo, s.gail])).toEqual([200, 200, 200]);
      });
    });
  });
}
