import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SERVICE_STORES, pgEnabled } from '../support/databases.js';
import { expectProblem, type TestResponse } from '../support/expect-problem.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

function expectThrottled(response: TestResponse, retryAfterS: number): void {
  expectProblem(response, 429, 'TOO_MANY_ATTEMPTS');
  expect(response.headers.get('retry-after')).toBe(String(retryAfterS));
  expect(response.setCookies).toEqual([]);
}

for (const store of ALL_SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`login throttling [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_S: '900' },
      });
      for (const username of ['tom', 'uma', 'val', 'wes']) {
        await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      }
    });
    afterAll(() => server?.close());

    function attempt(username: string, password: string) {
      return new TestClient(server.url).post('/api/v1/login/', { username, password });
    }

    it('answers 429 with Retry-After from the 4th attempt, even with the right password', async () => {
      for (let i = 0; i < 3; i++) expectProblem(await attempt('tom', WRONG), 401, 'AUTHENTICATION_FAILED');
      expectThrottled(await attempt('tom', PASSWORD), 900);
      // Any spelling of the username is the same account, and the same budget (canonical form).
      expectThrottled(await attempt('TOM', PASSWORD), 900);
      expectThrottled(await attempt('ＴＯＭ', PASSWORD), 900);

      // Another user from the same client address is not blocked by tom's failures.
      expect((await attempt('uma', PASSWORD)).status).toBe(200);

      // Once the window that began with the first failure is over, the right password works
      // and forgives the failures.
      server.clock.advanceSeconds(900);
      expect((await attempt('tom', PASSWORD)).status).toBe(200);
      expectProblem(await attempt('tom', WRONG), 401, 'AUTHENTICATION_FAILED');
      expectProblem(await attempt('tom', WRONG), 401, 'AUTHENTICATION_FAILED');
      expect((await attempt('tom', PASSWORD)).status).toBe(200);
    });

    it('makes the client wait for the rest of the window, never longer', async () => {
      expectProblem(await attempt('wes', WRONG), 401, 'AUTHENTICATION_FAILED');
      server.clock.advanceSeconds(300);
      expectProblem(await attempt('wes', WRONG), 401, 'AUTHENTICATION_FAILED');
      expectProblem(await attempt('wes', WRONG), 401, 'AUTHENTICATION_FAILED');
      // The window began 300 s ago: 600 s are left, and refused attempts do not extend it.
      expectThrottled(await attempt('wes', PASSWORD), 600);
      server.clock.advanceSeconds(599);
      expectThrottled(await attempt('wes', WRONG), 1);
      server.clock.advanceSeconds(1);
      expect((await attempt('wes', PASSWORD)).status).toBe(200);
    });

    it('counts a wrong current password on a password change', async () => {
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username: 'val', password: PASSWORD })).status).toBe(200);
      const change = (old_password: string) =>
        client.post('/api/v1/password/', { old_password, new_password: 'a brand new passphrase' });
      for (let i = 0; i < 3; i++) expectProblem(await change(WRONG), 403, 'CURRENT_PASSWORD_MISMATCH');
      expectThrottled(await change(PASSWORD), 900);
      // The same account count throttles the login too.
      expectThrottled(await attempt('val', PASSWORD), 900);

      server.clock.advanceSeconds(900);
      const changed = await change(PASSWORD);
      expect(changed.status).toBe(200);
      expect((await attempt('val', 'a brand new passphrase')).status).toBe(200);
    });

    it('counts failures for unknown usernames too, without revealing they are unknown', async () => {
      for (let i = 0; i < 3; i++) {
        expectProblem(await attempt('nobody-at-all', WRONG), 401, 'AUTHENTICATION_FAILED');
      }
      expectThrottled(await attempt('nobody-at-all', WRONG), 900);
    });
  });

  describe.skipIf(store === 'postgres' && !pgEnabled)(
    `login throttling per client address [${store}]`,
    () => {
      let server: TestServer;

      beforeAll(async () => {
        server = await startTestServer({ store, env: { LOGIN_MAX_FAILURES: '1' } });
        await seedUser(server, { username: 'xena', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      });
      afterAll(() => server?.close());

      it('slows an address down after ten times the per-account allowance, across usernames', async () => {
        const attempt = (username: string, password: string) =>
          new TestClient(server.url).post('/api/v1/login/', { username, password });
        // Nine failures on nine different (unknown) accounts: the address is still allowed.
        for (let i = 0; i < 9; i++) {
          expectProblem(await attempt(`spray${i}`, WRONG), 401, 'AUTHENTICATION_FAILED');
        }
        expect((await attempt('xena', PASSWORD)).status).toBe(200);
        // The tenth blocks the address, so even a fresh account with the right password waits.
        expectProblem(await attempt('spray9', WRONG), 401, 'AUTHENTICATION_FAILED');
        expectThrottled(await attempt('xena', PASSWORD), 900);
        server.clock.advanceSeconds(900);
        expect((await attempt('xena', PASSWORD)).status).toBe(200);
      });
    },
  );
}
