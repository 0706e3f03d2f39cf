/**
 * Issue 11, finding 11: PKCE can be required (OIDC_REQUIRE_PKCE), and a client address that keeps
 * sending codes that fail is stopped before they reach the customer's provider.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIRECT_URI, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { pkceChallenge, startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

for (const target of TRANSPORT_TARGETS) {
  describe(`SSO login guards [${target}]`, () => {
    let tp: TestProvider;
    let server: TestServer;
    /** Requests Gatehouse sent to the provider's token endpoint. */
    let tokenCalls = 0;

    beforeAll(async () => {
      tp = await startTestProvider({
        redirectUris: [REDIRECT_URI],
        accounts: { gina: { preferred_username: 'gina', groups: ['g1'] } },
      });
      const counting = (async (input: string | URL | Request, init?: RequestInit) => {
        const url = input instanceof Request ? input.url : String(input);
        if (url.includes('/token')) tokenCalls += 1;
        return fetch(input, init);
      }) as typeof fetch;
      // LOGIN_MAX_FAILURES=1: an address may fail 10 SSO logins per window (ADDRESS_FAILURE_FACTOR).
      server = await startTestServer({
        store: target,
        env: ssoEnv(tp, { OIDC_REQUIRE_PKCE: 'true', LOGIN_MAX_FAILURES: '1' }),
        oidcFetch: counting,
      });
      await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
    });
    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    function pkce() {
      const codeVerifier = randomBytes(32).toString('base64url');
      return { codeVerifier, codeChallenge: pkceChallenge(codeVerifier) };
    }

    it('with OIDC_REQUIRE_PKCE, refuses a login without code_verifier before calling the provider', async () => {
      const before = tokenCalls;
      const response = await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'INVALID_REQUEST' });
      expect(response.body.errors).toEqual([{ path: 'code_verifier', message: 'is required' }]);
      expect(tokenCalls).toBe(before);
      const withPkce = await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina', ...pkce() });
      expect(withPkce.status).toBe(200);
    });

    it('stops an address after 10 failed SSO logins in a window, without calling the provider', async () => {
      const junk = () =>
        new TestClient(server.url).post('/api/v1/openid/login/', {
          nonce: 'n-junk',
          authorization_code: randomBytes(16).toString('base64url'),
          redirect_uri: REDIRECT_URI,
          code_verifier: pkce().codeVerifier,
        });
      for (let i = 0; i < 10; i++) expect((await junk()).status).toBe(401);
      const before = tokenCalls;
      const throttled = await junk();
      expect(throttled.status).toBe(429);
      expect(throttled.body).toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
      expect(throttled.headers.get('retry-after')).toBe('900');
      // Even a good code waits: the provider is not called for this address until the window ends.
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina', ...pkce() })).status).toBe(
        429,
      );
      expect(tokenCalls).toBe(before);
      server.clock.advanceSeconds(900);
      expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina', ...pkce() })).status).toBe(
        200,
      );
    });
  });
}
