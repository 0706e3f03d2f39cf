import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SERVICE_STORES, pgEnabled } from '../support/databases.js';
import { expectProblem } from '../support/expect-problem.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';

let seq = 0;

for (const store of ALL_SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`password change [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store });
    });
    afterAll(() => server?.close());

    /** A fresh user per test, so one test's password change never affects another. */
    async function freshUser(options: { mustChangePassword?: boolean } = {}): Promise<string> {
      seq += 1;
      const username = `user${seq}`;
      await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1', ...options });
      return username;
    }

    async function loggedIn(username: string, password = PASSWORD) {
      const client = new TestClient(server.url);
      const response = await client.post('/api/v1/login/', { username, password });
      expect(response.status).toBe(200);
      return { client, response };
    }

    it('needs a session', async () => {
      const response = await new TestClient(server.url).post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: NEW_PASSWORD,
      });
      expectProblem(response, 401, 'NOT_AUTHENTICATED');
    });

    it('refuses a wrong current password with 403 CURRENT_PASSWORD_MISMATCH and changes nothing', async () => {
      const username = await freshUser();
      const { client } = await loggedIn(username);
      const token = client.session;
      const response = await client.post('/api/v1/password/', {
        old_password: 'not the password',
        new_password: NEW_PASSWORD,
      });
      expectProblem(response, 403, 'CURRENT_PASSWORD_MISMATCH');
      expect(response.setCookies).toEqual([]);
      expect(client.session).toBe(token);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      await loggedIn(username, PASSWORD);
    });

    it.each<[string, string, string]>([
      ['too short', 'short', 'must have at least 12 characters'],
      ['too common', '123qweasdzxc', 'is too common'],
      ['the current password', PASSWORD, 'must differ from the current password'],
      ['empty', '', 'must have at least 12 characters'],
    ])(
      'refuses a new password that is %s with 400 PASSWORD_POLICY and errors',
      async (_label, candidate, message) => {
        const username = await freshUser();
        const { client } = await loggedIn(username);
        const response = await client.post('/api/v1/password/', {
          old_password: PASSWORD,
          new_password: candidate,
        });
        expectProblem(response, 400, 'PASSWORD_POLICY');
        expect(response.body.errors).toEqual(expect.arrayContaining([{ path: 'new_password', message }]));
        await loggedIn(username, PASSWORD);
      },
    );

    it.each<[string, string]>([
      [
        'aaaaaaaaaaaaaaaa',
        'is too easy to guess: Repeated characters like "aaa" are easy to guess. Add more words that are less common.',
      ],
      [
        'passwordpassword',
        'is too easy to guess: Repeated character patterns like "abcabcabc" are easy to guess. Add more words that are less common.',
      ],
      [
        'qwertyuiop123456',
        'is too easy to guess: This is similar to a commonly used password. Add more words that are less common.',
      ],
    ])(
      'refuses %s, long enough and not on the common list, as too easy to guess, saying why',
      async (candidate, message) => {
        const username = await freshUser();
        const { client } = await loggedIn(username);
        const response = await client.post('/api/v1/password/', {
          old_password: PASSWORD,
          new_password: candidate,
        });
        expectProblem(response, 400, 'PASSWORD_POLICY');
        expect(response.body.errors).toEqual([{ path: 'new_password', message }]);
        await loggedIn(username, PASSWORD);
      },
    );

    it('refuses the username as the new password', async () => {
      seq += 1;
      const username = `long-username-${seq}`;
      await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      const { client } = await loggedIn(username);
      const response = await client.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: username.toUpperCase(),
      });
      expectProblem(response, 400, 'PASSWORD_POLICY');
      expect(response.body.errors).toEqual([{ path: 'new_password', message: 'must not be the username' }]);
    });

    it('refuses missing and mistyped fields with 400 INVALID_REQUEST and their paths', async () => {
      const username = await freshUser();
      const { client } = await loggedIn(username);
      const missing = await client.post('/api/v1/password/', {});
      expectProblem(missing, 400, 'INVALID_REQUEST');
      expect(missing.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
        'new_password',
        'old_password',
      ]);
      const mistyped = await client.post('/api/v1/password/', { old_password: PASSWORD, new_password: 123 });
      expectProblem(mistyped, 400, 'INVALID_REQUEST');
      expect(mistyped.body.errors.map((error: { path: string }) => error.path)).toEqual(['new_password']);
    });

    it('changes the password, rotates this session and ends the user’s other sessions', async () => {
      const username = await freshUser();
      const other = await loggedIn(username);
      const { client } = await loggedIn(username);
      const before = client.session!;

      const response = await client.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: NEW_PASSWORD,
      });
      expect(response.status).toBe(200);
      expect(response.body.ids).toStrictEqual({
        tenant_id: 't1',
        group_id: 'g1',
        user_id: expect.any(String),
      });
      expect(response.body.profile).toMatchObject({ username, user_level: 0, is_first_login: false });
      expect(response.setCookies).toHaveLength(1);
      expect(response.setCookies[0]).toMatch(
        /^sessionid=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; Secure; SameSite=Lax$/,
      );
      const after = client.session!;
      expect(after).not.toBe(before);

      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expectProblem(
        await new TestClient(server.url).get('/api/v1/session/', { cookie: `sessionid=${before}` }),
        401,
        'NOT_AUTHENTICATED',
      );
      expectProblem(await other.client.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');

      const oldLogin = await new TestClient(server.url).post('/api/v1/login/', {
        username,
        password: PASSWORD,
      });
      expectProblem(oldLogin, 401, 'AUTHENTICATION_FAILED');
      await loggedIn(username, NEW_PASSWORD);
    });

    it('makes an administrator-set password expired at login until the user sets their own', async () => {
      const username = await freshUser({ mustChangePassword: true });
      const { client, response } = await loggedIn(username);
      expect(response.body.profile.is_expired).toBe(true);
      expectProblem(await client.get('/api/v1/session/'), 403, 'PASSWORD_EXPIRED');

      const change = await client.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: NEW_PASSWORD,
      });
      expect(change.status).toBe(200);
      expect(change.body.profile.is_expired ?? false).toBe(false);
      const session = await client.get('/api/v1/session/');
      expect(session.status).toBe(200);
      expect(session.body.profile.is_expired ?? false).toBe(false);

      const again = await loggedIn(username, NEW_PASSWORD);
      expect(again.response.body.profile.is_expired ?? false).toBe(false);
      expect((await again.client.get('/api/v1/session/')).status).toBe(200);
    });

    it('answers the same on the path without the trailing slash', async () => {
      const username = await freshUser();
      const { client } = await loggedIn(username);
      const response = await client.post('/api/v1/password', {
        old_password: PASSWORD,
        new_password: NEW_PASSWORD,
      });
      expect(response.status).toBe(200);
    });
  });
}
