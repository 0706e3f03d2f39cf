/**
 * A password change on a session opened by single sign-on: the rotated session is still that SSO
 * session, so the provider tokens move with it and a later SSO logout revokes them at the
 * provider. On each session store (the Redis one keeps the provider tokens apart from the session).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderTap, ssoLogin } from '../fixtures/sso/harness.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import type { TestProvider } from '../support/oidc/test-provider.js';
import { startTappedSsoServer } from '../support/tapped-sso-server.js';
import { TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'a long enough password for ann';
const NEW_PASSWORD = 'a brand new passphrase 42';

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(
    `a password change on an SSO session [${store}]`,
    () => {
      let tp: TestProvider;
      let tap: ProviderTap;
      let server: TestServer;

      beforeAll(async () => {
        ({ tp, tap, server } = await startTappedSsoServer({
          provider: { accounts: { ann: { preferred_username: 'ann', groups: ['g1'] } } },
          store,
          users: [{ username: 'ann', password: PASSWORD, userLevel: 8, tenantId: 't1', groupId: 'g1' }],
        }));
      });

      afterAll(async () => {
        await server?.close();
        await tp?.close();
      });

      it('moves the provider tokens to the rotated session: its SSO logout revokes them', async () => {
        const client = new TestClient(server.url);
        expect(
          (await ssoLogin(client, tp, { accountId: 'ann', scope: 'openid profile offline_access' })).status,
        ).toBe(200);
        const tokens = tap.lastTokens;
        const before = client.session!;

        const change = await client.post('/api/v1/password/', {
          old_password: PASSWORD,
          new_password: NEW_PASSWORD,
        });
        expect(change.status).toBe(200);
        expect(client.session).not.toBe(before);
        expect(await tp.introspect(tokens.refresh_token!)).toMatchObject({ active: true, sub: 'ann' });

        const logout = await client.post('/api/v1/openid/logout/', {});
        expect(logout.status).toBe(200);
        expect(await tp.introspect(tokens.refresh_token!)).toEqual({ active: false });
        expect(await tp.introspect(tokens.access_token!)).toEqual({ active: false });
      });
    },
  );
}
