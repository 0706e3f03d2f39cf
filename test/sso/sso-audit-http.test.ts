/**
 * The audit trail of single sign-on, over HTTP against a real oidc-provider, on both stores:
 * logins (success, refusal), logout with the provider's outcome, back-channel logout; and no
 * provider token ever reaches the table.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import type { AuditRecord } from '../../src/domain/audit/audit-event.js';
import { sessionKeepUntil } from '../../src/domain/session/session.js';
import { tokenBinding } from '../../src/domain/sso/token-sealer.port.js';
import { type ProviderTap, ssoLogin } from '../fixtures/sso/harness.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import type { TestProvider } from '../support/oidc/test-provider.js';
import { startTappedSsoServer } from '../support/tapped-sso-server.js';
import { seedUser, TestClient, type TestServer } from '../support/test-server.js';

const ACCOUNTS = {
  gina: { preferred_username: 'gina', groups: ['g1'] },
  stranger: { preferred_username: 'stranger', groups: ['g1'] },
};
const OFFLINE = 'openid profile offline_access';

function summary(records: AuditRecord[]): string[] {
  return records.map((r) =>
    [r.event, r.outcome, r.actor, r.method ?? '-', r.reason ?? '-', r.sessionCount ?? ''].join(' ').trim(),
  );
}

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`SSO audit trail over HTTP [${store}]`, () => {
    let tp: TestProvider;
    let tap: ProviderTap;
    let server: TestServer;
    let ginaId: string;

    /** The key before a rotation, kept in TOKEN_ENCRYPTION_KEYS_PREVIOUS. */
    const previousKey = randomBytes(32).toString('base64');

    beforeAll(async () => {
      ({ tp, tap, server } = await startTappedSsoServer({
        provider: { accounts: ACCOUNTS },
        store,
        env: {
          TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
          TOKEN_ENCRYPTION_KEYS_PREVIOUS: previousKey,
        },
      }));
      ginaId = (await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' }))
        .userId;
    });
    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });
    afterEach(() => tap.reset());

    async function login(accountId: string): Promise<{ client: TestClient; status: number }> {
      const client = new TestClient(server.url);
      const response = await ssoLogin(client, tp, { accountId, scope: OFFLINE });
      return { client, status: response.status };
    }

    const ginaEvents = () => server.gatehouse.store.audit.listForUser(ginaId, { limit: 100 });

    it('records SSO logins, logouts with the provider outcome, and back-channel revocations', async () => {
      const first = await login('gina');
      expect(first.status).toBe(200);
      expect((await login('stranger')).status).toBe(401);
      expect((await first.client.post('/api/v1/openid/logout/', {})).status).toBe(200);

      const refused = await login('gina');
      tap.replaceRevocation = () =>
        new Response(JSON.stringify({ error: 'invalid_client' }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        });
      expect((await refused.client.post('/api/v1/openid/logout/', {})).body.code).toBe('SSO_REFUSED');
      tap.reset();

      await login('gina');
      await login('gina');
      const logoutToken = tp.signLogoutToken({ sub: 'gina' });
      const backchannel = await new TestClient(server.url).request(
        'POST',
        '/api/v1/openid/backchannel-logout/',
        {
          body: new URLSearchParams({ logout_token: logoutToken }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
      );
      expect(backchannel.status).toBe(200);

      const events = await ginaEvents();
      expect(summary(events)).toEqual([
        'login success user sso -',
        'sso_logout success user sso -',
        'provider_logout success user sso -',
        'login success user sso -',
        'sso_logout success user sso -',
        'provider_logout failure user sso sso_refused',
        'login success user sso -',
        'login success user sso -',
        'session_revoked success provider sso backchannel_logout 1',
        'session_revoked success provider sso backchannel_logout 1',
      ]);
      expect(events[0]).toMatchObject({ username: 'gina', sessionHandle: expect.any(String) });
      expect(events[1]!.sessionHandle).toBe(events[0]!.sessionHandle);
      expect(new Set(events.slice(-2).map((e) => e.sessionHandle))).toEqual(
        new Set(events.slice(6, 8).map((e) => e.sessionHandle)),
      );

      // The refused stranger: no local account matched, so neither user nor username.
      const { rows } = await server.sql.query(
        `SELECT user_id, username, method, reason FROM audit_events WHERE user_id IS NULL`,
      );
      expect(rows).toEqual([{ user_id: null, username: null, method: 'sso', reason: 'unknown_user' }]);
    });

    /** Re-seals the session's provider tokens as if an earlier key had sealed them. */
    async function resealTokens(client: TestClient, sealer: AesTokenSealer): Promise<void> {
      // Through the port, so it works on every session store: the session is taken out and put
      // back with its tokens sealed by that key.
      const tokenHash = createHash('sha256').update(client.session!).digest('hex');
      const { sessions } = server.store;
      const stored = (await sessions.deleteByTokenHash(tokenHash))!;
      const ref = stored.sso!;
      await sessions.create(
        {
          ...stored,
          sso: {
            ...ref,
            accessTokenSealed: sealer.seal('old-access', tokenBinding('access_token', ref)),
            refreshTokenSealed: sealer.seal('old-refresh', tokenBinding('refresh_token', ref)),
          },
        },
        sessionKeepUntil(stored, server.config.session.idleTimeoutS),
      );
    }

    it('after a rotation with the former key in TOKEN_ENCRYPTION_KEYS_PREVIOUS: the logout still revokes', async () => {
      const { client } = await login('gina');
      await resealTokens(client, AesTokenSealer.fromBase64(previousKey));
      const revocationsBefore = tap.revocations;
      expect((await client.post('/api/v1/openid/logout/', {})).status).toBe(200);
      expect(tap.revocations).toBeGreaterThan(revocationsBefore);
      expect(summary((await ginaEvents()).slice(-2))).toEqual([
        'sso_logout success user sso -',
        'provider_logout success user sso -',
      ]);
    });

    it('after a TOKEN_ENCRYPTION_KEY change: the logout ends locally, records tokens_unreadable', async () => {
      const { client } = await login('gina');
      // As if sealed under a key no longer configured at all.
      await resealTokens(client, AesTokenSealer.random());
      const revocationsBefore = tap.revocations;
      const response = await client.post('/api/v1/openid/logout/', {});
      expect(response.status).toBe(200);
      expect(tap.revocations).toBe(revocationsBefore);
      const last = (await ginaEvents()).slice(-2);
      expect(summary(last)).toEqual([
        'sso_logout success user sso -',
        'provider_logout failure user sso tokens_unreadable',
      ]);
    });

    it('keeps every provider token and cookie out of the table', async () => {
      const { client } = await login('gina');
      const { rows } = await server.sql.query<{ row: string }>(
        'SELECT row_to_json(a)::text AS row FROM audit_events a',
      );
      const table = rows.map((r) => r.row).join('\n');
      expect(tap.tokenResponses.length).toBeGreaterThanOrEqual(5);
      for (const tokens of tap.tokenResponses) {
        for (const value of [tokens.id_token, tokens.access_token, tokens.refresh_token]) {
          if (value) expect(table).not.toContain(value);
        }
      }
      expect(table).not.toContain(client.session!);
    });
  });
}
