import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_TARGETS } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const DEVICE_COOKIE = 'sessionid_device';

// Issue 11, finding 4: anyone who knows a username could keep its account blocked. A browser that
// logged in as the user before carries a device proof and has a budget of its own.
for (const store of POLICY_TARGETS) {
  describe(`targeted lockout, device proofs [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_S: '900' },
      });
      for (const username of ['amy', 'ben', 'cat', 'dan']) {
        await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      }
    });
    afterAll(() => server?.close());

    /** A browser that has logged in as `username` once: it holds the device proof. */
    async function knownBrowser(username: string): Promise<TestClient> {
      const browser = new TestClient(server.url);
      expect((await browser.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      expect(browser.cookies.get(DEVICE_COOKIE)).toBeDefined();
      return browser;
    }

    async function blockAccount(username: string): Promise<void> {
      const attacker = new TestClient(server.url);
      for (let i = 0; i < 3; i++) {
        expect((await attacker.post('/api/v1/login/', { username, password: WRONG })).status).toBe(401);
      }
      expect((await attacker.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(429);
    }

    it('lets the real user’s browser log in while guesses from elsewhere keep the account blocked', async () => {
      const browser = await knownBrowser('amy');
      await blockAccount('amy');
      const login = await browser.post('/api/v1/login/', { username: 'AMY', password: PASSWORD });
      expect(login.status).toBe(200);
      expect(login.body.ids).toBeDefined();
      // The success forgave this device only: the account stays blocked for browsers without a proof.
      const stranger = await new TestClient(server.url).post('/api/v1/login/', {
        username: 'amy',
        password: PASSWORD,
      });
      expect(stranger.status).toBe(429);
      expect(stranger.headers.get('retry-after')).toBe('900');
    });

    it('gives the device a budget of its own: its own wrong guesses block it', async () => {
      const browser = await knownBrowser('ben');
      for (let i = 0; i < 3; i++) {
        expect((await browser.post('/api/v1/login/', { username: 'ben', password: WRONG })).status).toBe(401);
      }
      expect((await browser.post('/api/v1/login/', { username: 'ben', password: PASSWORD })).status).toBe(
        429,
      );
      // The account's budget was not spent by the device: another browser still gets in.
      expect(
        (await new TestClient(server.url).post('/api/v1/login/', { username: 'ben', password: PASSWORD }))
          .status,
      ).toBe(200);
    });

    it('ignores a proof issued for another user, and a forged one', async () => {
      const catBrowser = await knownBrowser('cat');
      const proof = catBrowser.cookies.get(DEVICE_COOKIE)!;
      await blockAccount('dan');
      const [nonce, expiry, mac] = proof.split('.') as [string, string, string];
      for (const presented of [proof, `${nonce}.${Number(expiry) + 1}.${mac}`, 'forged.1.proof']) {
        const response = await new TestClient(server.url).post(
          '/api/v1/login/',
          { username: 'dan', password: PASSWORD },
          { cookie: `${DEVICE_COOKIE}=${presented}` },
        );
        expect(response.status).toBe(429);
      }
    });
  });
}
