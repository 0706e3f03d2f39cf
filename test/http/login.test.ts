import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserLevel } from '../../src/domain/user/user.js';
import { ALL_SERVICE_STORES, pgEnabled } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const DAY_S = 86_400;

type Response = Awaited<ReturnType<TestClient['request']>>;

function expectProblem(response: Response, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof response.body.title).toBe('string');
  expect(typeof response.body.detail).toBe('string');
  expect(response.body.request_id).toBe(response.headers.get('x-request-id'));
}

async function login(server: TestServer, username: string, password = PASSWORD) {
  const client = new TestClient(server.url);
  const response = await client.post('/api/v1/login/', { username, password });
  return { client, response };
}

for (const store of ALL_SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`password login [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store });
      const base = { password: PASSWORD, tenantId: 't1', groupId: 'g1' };
      await seedUser(server, {
        ...base,
        username: 'ann',
        userId: 'u-ann',
        userLevel: 0,
        backendName: 'be-par-1',
        platformType: 'pbx',
        firstName: 'Ann',
        lastName: 'Lee',
        language: 'English',
        languageCode: 'en',
        emailAddress: 'ann@example.com',
        accessType: 0,
        readOnly: false,
        userType: 'agent',
        phoneNumber: '+33 1 23 45 67 89',
        role: 'supervisor',
        isEnterprise: true,
      });
      await seedUser(server, { ...base, username: 'bare', userId: 'u-bare' });
      for (const [username, userLevel] of [
        ['end', 0],
        ['dept', 4],
        ['gadmin', 8],
        ['tadmin', 12],
        ['sysadmin', 16],
      ] as const) {
        await seedUser(server, { ...base, username, userId: `u-${username}`, userLevel });
      }
      await seedUser(server, { username: 'orphan', password: PASSWORD, userId: 'u-orphan', userLevel: 0 });
      await seedUser(server, { ...base, username: 'Mixed.Case', userId: 'u-mixed', userLevel: 8 });
      await seedUser(server, { ...base, username: 'gone', userId: 'u-gone', disabled: true });
      await seedUser(server, { tenantId: 't1', groupId: 'g1', username: 'nopass', userId: 'u-nopass' });
    });
    afterAll(() => server?.close());

    it.each<[string, UserLevel, Record<string, string>]>([
      ['end', 0, { tenant_id: 't1', group_id: 'g1', user_id: 'u-end' }],
      ['dept', 4, { tenant_id: 't1', group_id: 'g1' }],
      ['gadmin', 8, { tenant_id: 't1', group_id: 'g1' }],
      ['tadmin', 12, { tenant_id: 't1' }],
      ['sysadmin', 16, {}],
    ])('logs in %s (level %i) with exactly the ids of that level', async (username, level, ids) => {
      const { client, response } = await login(server, username);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body.ids).toStrictEqual(ids);
      expect(response.body.profile).toStrictEqual({ user_level: level, is_first_login: true, username });
      const session = await client.get('/api/v1/session/');
      expect(session.status).toBe(200);
      expect(session.body.ids).toStrictEqual(ids);
      expect(session.body.profile.user_level).toBe(level);
    });

    it('omits ids the user does not have, never null', async () => {
      const { response } = await login(server, 'orphan');
      expect(response.status).toBe(200);
      expect(response.body.ids).toStrictEqual({ user_id: 'u-orphan' });
    });

    it('answers the full profile with every optional field that is set; phoneNumber only at login', async () => {
      const { client, response } = await login(server, 'ann');
      expect(response.status).toBe(200);
      const profile = {
        user_level: 0,
        is_first_login: true,
        platform_type: 'pbx',
        username: 'ann',
        first_name: 'Ann',
        last_name: 'Lee',
        language: 'English',
        language_code: 'en',
        emailAddress: 'ann@example.com',
        access_type: 0,
        read_only: false,
        user_type: 'agent',
        role: 'supervisor',
        is_enterprise: true,
      };
      expect(response.body).toStrictEqual({
        ids: { tenant_id: 't1', group_id: 'g1', user_id: 'u-ann' },
        profile: { ...profile, phoneNumber: '+33 1 23 45 67 89' },
      });
      // No backend fields: PROVIDE_BACKEND_INFO defaults to false. No expiry fields: login expiration is off.
      const session = await client.get('/api/v1/session/');
      expect(session.status).toBe(200);
      expect(session.body).toStrictEqual({
        ids: { tenant_id: 't1', group_id: 'g1', user_id: 'u-ann' },
        profile,
        // Contract 3b: how and when the session was made.
        session: { amr: ['pwd'], auth_time: Math.floor(server.clock.now().getTime() / 1000) },
      });
      expect(session.text).not.toContain('phoneNumber');
    });

    it('answers a bare profile for a user without optional attributes', async () => {
      const { response } = await login(server, 'bare');
      expect(response.status).toBe(200);
      expect(response.body.profile).toStrictEqual({ user_level: 0, is_first_login: true, username: 'bare' });
      expect(response.text).not.toContain('null');
    });

    it('says is_first_login true on the first login only, and keeps saying so on that session', async () => {
      await seedUser(server, { username: 'newbie', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      const first = await login(server, 'newbie');
      expect(first.response.body.profile.is_first_login).toBe(true);
      expect((await first.client.get('/api/v1/session/')).body.profile.is_first_login).toBe(true);

      // A later login, at a later time (the test clock stands still unless moved).
      server.clock.advanceSeconds(1);
      const second = await login(server, 'newbie');
      expect(second.response.body.profile.is_first_login).toBe(false);
      expect((await second.client.get('/api/v1/session/')).body.profile.is_first_login).toBe(false);
    });

    it('does not count a failed login as the first login', async () => {
      await seedUser(server, { username: 'careful', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      expect((await login(server, 'careful', 'not the password')).response.status).toBe(401);
      expect((await login(server, 'careful')).response.body.profile.is_first_login).toBe(true);
    });

    it('matches the username case-insensitively and answers the stored username', async () => {
      for (const attempt of ['mixed.case', 'MIXED.CASE', 'Mixed.Case']) {
        const { response } = await login(server, attempt);
        expect(response.status).toBe(200);
        expect(response.body.ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1' });
        expect(response.body.profile.username).toBe('Mixed.Case');
      }
    });

    it('matches the username under one canonical form: compatibility forms and full case folding', async () => {
      await seedUser(server, { username: 'Straße', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      for (const attempt of ['STRASSE', 'strasse', 'ＳＴＲＡＳＳＥ', 'straße']) {
        const { response } = await login(server, attempt);
        expect(response.status).toBe(200);
        expect(response.body.profile.username).toBe('Straße');
      }
      // An invisible character makes another name, which matches no account.
      expect((await login(server, 'stra\u200bsse')).response.status).toBe(401);
    });

    it('accepts and ignores the deprecated provide_basic_profile', async () => {
      for (const provide_basic_profile of [true, false]) {
        const client = new TestClient(server.url);
        const response = await client.post('/api/v1/login/', {
          username: 'bare',
          password: PASSWORD,
          provide_basic_profile,
        });
        expect(response.status).toBe(200);
        expect(response.body.profile).toStrictEqual({
          user_level: 0,
          is_first_login: false,
          username: 'bare',
        });
      }
    });

    it('ignores unknown request fields', async () => {
      const client = new TestClient(server.url);
      const response = await client.post('/api/v1/login/', {
        username: 'bare',
        password: PASSWORD,
        remember_me: true,
        nested: { anything: [1, 2, 3] },
        user_level: 16,
      });
      expect(response.status).toBe(200);
      expect(response.body.profile).toStrictEqual({ user_level: 0, is_first_login: false, username: 'bare' });
    });

    it('answers the same on the path without the trailing slash', async () => {
      const client = new TestClient(server.url);
      const response = await client.post('/api/v1/login', { username: 'bare', password: PASSWORD });
      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({
        ids: { tenant_id: 't1', group_id: 'g1', user_id: 'u-bare' },
        profile: { user_level: 0, is_first_login: false, username: 'bare' },
      });
      expect(client.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const session = await client.get('/api/v1/session');
      expect(session.status).toBe(200);
      expect(session.body.profile.username).toBe('bare');
    });

    it('refuses unknown user, wrong password, disabled account and password-less account alike', async () => {
      const attempts = [
        { username: 'nobody-here', password: PASSWORD },
        { username: 'bare', password: 'not the password' },
        { username: 'gone', password: PASSWORD },
        { username: 'nopass', password: PASSWORD },
      ];
      const responses: Response[] = [];
      for (const attempt of attempts) {
        const client = new TestClient(server.url);
        const response = await client.post('/api/v1/login/', attempt);
        expectProblem(response, 401, 'AUTHENTICATION_FAILED');
        expect(response.setCookies).toEqual([]);
        responses.push(response);
      }
      const bodies = responses.map((response) => response.text.replace(response.body.request_id, '<id>'));
      expect(new Set(bodies).size).toBe(1);
      const headerNames = responses.map((response) =>
        [...response.headers.keys()].filter((name) => name !== 'date').join(','),
      );
      expect(new Set(headerNames).size).toBe(1);
      expect(new Set(responses.map((response) => response.headers.get('content-length'))).size).toBe(1);
      expect(new Set(responses.map((response) => response.body.request_id)).size).toBe(attempts.length);
    });

    it('does not log the password', async () => {
      await login(server, 'bare', 'a secret that must not be logged');
      expect(server.rawLogs.join('\n')).not.toContain('a secret that must not be logged');
      expect(server.rawLogs.join('\n')).not.toContain(PASSWORD);
    });
  });

  describe.skipIf(store === 'postgres' && !pgEnabled)(`backend info in the profile [${store}]`, () => {
    let shown: TestServer;
    let hidden: TestServer;

    beforeAll(async () => {
      [shown, hidden] = await Promise.all([
        startTestServer({ store, env: { PROVIDE_BACKEND_INFO: 'true' } }),
        startTestServer({ store }),
      ]);
      for (const server of [shown, hidden]) {
        await seedUser(server, {
          username: 'hosted',
          password: PASSWORD,
          tenantId: 't1',
          groupId: 'g1',
          backendName: 'be-par-1',
        });
        await seedUser(server, { username: 'unhosted', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      }
    });
    afterAll(async () => {
      await Promise.all([shown?.close(), hidden?.close()]);
    });

    it('shows backendName and backendExternalName with PROVIDE_BACKEND_INFO=true, at login and on the session', async () => {
      const { client, response } = await login(shown, 'hosted');
      expect(response.status).toBe(200);
      expect(response.body.profile.backendName).toBe('be-par-1');
      expect(response.body.profile.backendExternalName).toBe('be-par-1 external');
      const session = await client.get('/api/v1/session/');
      expect(session.body.profile.backendName).toBe('be-par-1');
      expect(session.body.profile.backendExternalName).toBe('be-par-1 external');
    });

    it('shows nothing for a user without a backend, even with the flag', async () => {
      const { client, response } = await login(shown, 'unhosted');
      expect(response.status).toBe(200);
      expect(response.body.profile).toStrictEqual({
        user_level: 0,
        is_first_login: true,
        username: 'unhosted',
      });
      expect((await client.get('/api/v1/session/')).text).not.toContain('backend');
    });

    it('hides the backend by default', async () => {
      const { client, response } = await login(hidden, 'hosted');
      expect(response.status).toBe(200);
      expect(response.text).not.toContain('backend');
      expect(response.text).not.toContain('be-par-1');
      expect((await client.get('/api/v1/session/')).text).not.toContain('be-par-1');
    });
  });

  describe.skipIf(store === 'postgres' && !pgEnabled)(`login expiration [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store, env: { PASSWORD_MAX_AGE_DAYS: '30' } });
      await seedUser(server, { username: 'aging', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
    });
    afterAll(() => server?.close());

    it('counts expires_in down, then marks the login expired and lets only a password change through', async () => {
      let { client, response } = await login(server, 'aging');
      expect(response.status).toBe(200);
      expect(response.body.profile.is_expired).toBe(false);
      expect(response.body.profile.expires_in).toBe(30);
      expect((await client.get('/api/v1/session/')).body.profile).toMatchObject({
        is_expired: false,
        expires_in: 30,
      });

      server.clock.advanceSeconds(10 * DAY_S + 60);
      ({ client, response } = await login(server, 'aging'));
      expect(response.body.profile).toMatchObject({ is_expired: false, expires_in: 19 });

      // Just inside the last day: still allowed, 0 days left.
      server.clock.advanceSeconds(20 * DAY_S - 120);
      ({ client, response } = await login(server, 'aging'));
      expect(response.body.profile).toMatchObject({ is_expired: false, expires_in: 0 });
      expect((await client.get('/api/v1/session/')).status).toBe(200);

      server.clock.advanceSeconds(120);
      ({ client, response } = await login(server, 'aging'));
      expect(response.status).toBe(200);
      expect(response.body.profile).toMatchObject({ is_expired: true, expires_in: 0 });
      expectProblem(await client.get('/api/v1/session/'), 403, 'PASSWORD_EXPIRED');

      const change = await client.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: NEW_PASSWORD,
      });
      expect(change.status).toBe(200);
      expect(change.body.profile).toMatchObject({ is_expired: false, expires_in: 30 });
      const session = await client.get('/api/v1/session/');
      expect(session.status).toBe(200);
      expect(session.body.profile).toMatchObject({ is_expired: false, expires_in: 30 });
    });

    it('lets an expired session log out', async () => {
      await seedUser(server, { username: 'leaving', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      server.clock.advanceSeconds(31 * DAY_S);
      const { client, response } = await login(server, 'leaving');
      expect(response.body.profile.is_expired).toBe(true);
      const logout = await client.post('/api/v1/logout/', {});
      expect(logout.status).toBe(200);
      expect(logout.body).toEqual({});
    });
  });
}
