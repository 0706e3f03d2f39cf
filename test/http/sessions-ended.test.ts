/**
 * `gatehouse_sessions_ended_total` and the `session_ended` log line count every way a session
 * ends, each with its reason: logout, a user's revocations, a password change (the rotated
 * session included), eviction at SESSIONS_PER_USER_MAX, replacement by a login, both time-outs,
 * an administrator's revocations, disabling, and (below) SSO and back-channel logout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/boot/tokens.js';
import { ProviderTap, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { POLICY_TARGETS } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a whole new passphrase, long';

/** Every `gatehouse_sessions_ended_total` sample by reason. */
async function endedByReason(server: TestServer): Promise<Record<string, number>> {
  const text = await server.gatehouse.metrics.render();
  const counts: Record<string, number> = {};
  for (const [, reason, count] of text.matchAll(
    /^gatehouse_sessions_ended_total\{reason="(\w+)"\} (\S+)$/gm,
  )) {
    counts[reason!] = Number(count);
  }
  return counts;
}

/** How many sessions each reason ended while `act` ran: the metric and the log lines agree. */
async function endedDuring(server: TestServer, act: () => Promise<void>): Promise<Record<string, number>> {
  const before = await endedByReason(server);
  const linesBefore = server.logs.length;
  await act();
  const after = await endedByReason(server);
  const delta: Record<string, number> = {};
  for (const [reason, count] of Object.entries(after)) {
    if (count !== (before[reason] ?? 0)) delta[reason] = count - (before[reason] ?? 0);
  }
  const logged: Record<string, number> = {};
  for (const line of server.logs.slice(linesBefore)) {
    if (line.event !== 'session_ended') continue;
    const reason = String(line.reason);
    logged[reason] = (logged[reason] ?? 0) + Number(line.count);
  }
  expect(logged).toEqual(delta);
  return delta;
}

// What is counted and logged, not how a store ends sessions (its contract suite checks each store
// returns how many it ended): on both transports and both kinds of session store.
for (const store of POLICY_TARGETS) {
  describe(`every session end is counted, with its reason [${store}]`, () => {
    let server: TestServer;
    let seq = 0;

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: { SESSIONS_PER_USER_MAX: '2', LOGIN_MAX_FAILURES: '1000' },
      });
    });
    afterAll(() => server?.close());

    async function newUser(): Promise<string> {
      seq += 1;
      const username = `ended-${seq}`;
      await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      return username;
    }

    async function login(username: string, password = PASSWORD, client = new TestClient(server.url)) {
      expect((await client.post('/api/v1/login/', { username, password })).status).toBe(200);
      return client;
    }

    const admin = () => server.gatehouse.container.get(TOKENS.SessionEnding);

    it('every reason is exposed from the start, at zero', async () => {
      const fresh = await endedByReason(server);
      for (const reason of [
        'logout',
        'session_limit',
        'idle_timeout',
        'administrator',
        'replaced_by_login',
      ]) {
        expect(fresh[reason]).toBeTypeOf('number');
      }
    });

    it('logout', async () => {
      const client = await login(await newUser());
      expect(await endedDuring(server, async () => void (await client.post('/api/v1/logout/', {})))).toEqual({
        logout: 1,
      });
    });

    it('a user ending one session, then the others', async () => {
      const username = await newUser();
      const first = await login(username);
      const second = await login(username);
      const handle = (
        (await first.get('/api/v1/sessions/')).body.sessions as Array<{ handle: string; current: boolean }>
      ).find((session) => !session.current)!.handle;
      expect(
        await endedDuring(
          server,
          async () => void (await first.request('DELETE', `/api/v1/sessions/${handle}/`)),
        ),
      ).toEqual({ revoked: 1 });
      expect((await second.get('/api/v1/session/')).status).toBe(401);
      await login(username);
      expect(
        await endedDuring(server, async () => void (await first.post('/api/v1/sessions/revoke-others/', {}))),
      ).toEqual({ revoked_others: 1 });
    });

    it('a password change: the rotated session and the other one', async () => {
      const username = await newUser();
      const changing = await login(username);
      await login(username);
      const changed = await endedDuring(server, async () => {
        const response = await changing.post('/api/v1/password/', {
          old_password: PASSWORD,
          new_password: NEW_PASSWORD,
        });
        expect(response.status).toBe(200);
      });
      expect(changed).toEqual({ password_changed: 2 });
    });

    it('eviction beyond SESSIONS_PER_USER_MAX, and a login replacing the session it was sent with', async () => {
      const username = await newUser();
      await login(username);
      await login(username);
      server.clock.advanceSeconds(1);
      expect(await endedDuring(server, async () => void (await login(username)))).toEqual({
        session_limit: 1,
      });
      const client = await login(username);
      server.clock.advanceSeconds(1);
      // The same client logs in again: the session its cookie names ends (and one is evicted).
      expect(await endedDuring(server, async () => void (await login(username, PASSWORD, client)))).toEqual({
        replaced_by_login: 1,
      });
    });

    it('the idle and the absolute time-out, when a session is presented after it', async () => {
      const idle = await login(await newUser());
      server.clock.advanceSeconds(1800);
      expect(await endedDuring(server, async () => void (await idle.get('/api/v1/session/')))).toEqual({
        idle_timeout: 1,
      });
      const active = await login(await newUser());
      for (let step = 0; step < 36; step++) {
        server.clock.advanceSeconds(1200);
        if (step < 35) expect((await active.get('/api/v1/session/')).status).toBe(200);
      }
      expect(await endedDuring(server, async () => void (await active.get('/api/v1/session/')))).toEqual({
        absolute_timeout: 1,
      });
    });

    it('an administrator ending one session, a user’s sessions, everyone’s; disabling; setting a password', async () => {
      const { container } = server.gatehouse;
      const { AdminUsers } = await import('../../src/application/admin/admin-users.js');
      const users = new AdminUsers(
        server.gatehouse.store,
        container.get(TOKENS.PasswordHasher),
        container.get(TOKENS.PasswordPolicy),
        container.get(TOKENS.Clock),
        container.get(TOKENS.Random),
        admin(),
      );
      const username = await newUser();
      const client = await login(username);
      await login(username);
      const handle = ((await client.get('/api/v1/sessions/')).body.sessions as Array<{ handle: string }>)[0]!
        .handle;
      expect(
        await endedDuring(server, async () => void (await users.revokeSessions(username, handle))),
      ).toEqual({
        administrator: 1,
      });
      await login(username);
      await login(username);
      expect(await endedDuring(server, async () => void (await users.revokeSessions(username)))).toEqual({
        administrator: 2,
      });
      await login(username);
      expect(
        await endedDuring(server, async () => void (await users.setPassword(username, NEW_PASSWORD))),
      ).toEqual({ password_changed: 1 });
      await login(username, NEW_PASSWORD);
      expect(await endedDuring(server, async () => void (await users.disable(username)))).toEqual({
        user_disabled: 1,
      });
      const other = await login(await newUser());
      const all = await endedDuring(server, async () => void (await users.revokeAllSessions()));
      // Every store ends them: by its "end all" capability, or user by user (Redis declares none).
      expect((await other.get('/api/v1/session/')).status).toBe(401);
      expect(all.administrator).toBeGreaterThanOrEqual(1);
      expect(Object.keys(all)).toEqual(['administrator']);
    });
  });
}

describe('SSO logout and back-channel logout are counted [pglite]', () => {
  let tp: TestProvider;
  let server: TestServer;

  beforeAll(async () => {
    tp = await startTestProvider({ accounts: { gina: { preferred_username: 'gina', groups: ['g1'] } } });
    const tap = new ProviderTap(() => tp.issuer);
    server = await startTestServer({ env: ssoEnv(tp), oidcFetch: tap.fetch });
    await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  });
  afterAll(async () => {
    await server?.close();
    await tp?.close();
  });

  it('sso_logout and backchannel_logout', async () => {
    const client = new TestClient(server.url);
    expect((await ssoLogin(client, tp, { accountId: 'gina' })).status).toBe(200);
    expect(
      await endedDuring(server, async () => void (await client.post('/api/v1/openid/logout/', {}))),
    ).toEqual({ sso_logout: 1 });

    expect((await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' })).status).toBe(200);
    await tp.sendBackchannelLogout({ sub: 'gina' });
    const logoutToken = tp.capturedLogoutTokens.at(-1)!;
    const ended = await endedDuring(server, async () => {
      const response = await new TestClient(server.url).request(
        'POST',
        '/api/v1/openid/backchannel-logout/',
        {
          body: new URLSearchParams({ logout_token: logoutToken }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
      );
      expect(response.status).toBe(200);
    });
    expect(ended).toEqual({ backchannel_logout: 1 });
  });
});
