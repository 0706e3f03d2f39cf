/**
 * A password change against what can happen while its new hash is computed (argon2id takes tens
 * of milliseconds): its session revoked (issue 11, finding 7), another change of the same
 * password (issue 14, finding 5). And a rotation keeps the session's absolute expiry (11.7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import { ALL_SERVICE_STORES, pgEnabled } from '../support/databases.js';
import { HookedHasher } from '../support/hooked-hasher.js';
import { seedUser, startTestServer, TEST_ENV, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

let seq = 0;

for (const store of ALL_SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`password change races [${store}]`, () => {
    const hasher = new HookedHasher(new Argon2PasswordHasher(loadConfig(TEST_ENV).password.argon2));
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store, passwordHasher: hasher });
    });
    afterAll(() => server?.close());

    async function loggedIn(): Promise<{ username: string; client: TestClient }> {
      seq += 1;
      const username = `changer${seq}`;
      await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      return { username, client };
    }

    const change = (client: TestClient, newPassword: string) =>
      client.post('/api/v1/password/', { old_password: PASSWORD, new_password: newPassword });
    const login = (username: string, password: string) =>
      new TestClient(server.url).post('/api/v1/login/', { username, password });

    it('answers 401 and changes nothing when the session is revoked while the new hash is computed', async () => {
      const { username, client } = await loggedIn();
      const tokenHash = hashSessionToken(client.session!);
      hasher.onHashed = async () => {
        await server.store.sessions.deleteByTokenHash(tokenHash);
      };
      const response = await change(client, 'a brand new passphrase');
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('NOT_AUTHENTICATED');
      expect(response.setCookies.filter((line) => /^sessionid=[^;]/.test(line))).toEqual([]);
      expect((await login(username, PASSWORD)).status).toBe(200);
      expect((await login(username, 'a brand new passphrase')).status).toBe(401);
    });

    it('keeps the absolute expiry of the session it rotates', async () => {
      const { client } = await loggedIn();
      for (const step of [1200, 1200, 1200]) {
        server.clock.advanceSeconds(step);
        expect((await client.get('/api/v1/session/')).status).toBe(200);
      }
      const response = await change(client, 'a brand new passphrase');
      expect(response.status).toBe(200);
      // 12 h absolute time-out, one of them spent before the change.
      expect(response.setCookies[0]).toMatch(/; Max-Age=39600;/);
      // Kept alive by requests (under the idle time-out), it still ends 11 h after the change.
      for (let spent = 0; spent < 39_500; spent += 500) {
        server.clock.advanceSeconds(500);
        expect((await client.get('/api/v1/session/')).status).toBe(200);
      }
      server.clock.advanceSeconds(100);
      expect((await client.get('/api/v1/session/')).status).toBe(401);
    });

    it('lets exactly one of two changes with the same current password win', async () => {
      const { username, client: first } = await loggedIn();
      const second = new TestClient(server.url);
      expect((await second.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      // The second change starts once the first has computed its hash, and the first goes on only
      // once the second has computed its own: both verified the same current password, and both
      // would store theirs (a barrier, not a pause: the race happens on a loaded machine too).
      let secondResponse: ReturnType<typeof change> | undefined;
      let secondHashed!: () => void;
      const bothHashed = new Promise<void>((resolve) => {
        secondHashed = resolve;
      });
      hasher.onHashed = async () => {
        hasher.onHashed = async () => secondHashed();
        secondResponse = change(second, 'the second new passphrase');
        await bothHashed;
      };
      const firstResponse = await change(first, 'the first new passphrase');
      const answers = [firstResponse, await secondResponse!];
      const winners = answers.filter((response) => response.status === 200);
      expect(winners).toHaveLength(1);
      const loser = answers.find((response) => response.status !== 200)!;
      expect([403, 401]).toContain(loser.status);
      expect(loser.body.code).toBe(loser.status === 403 ? 'CURRENT_PASSWORD_MISMATCH' : 'NOT_AUTHENTICATED');
      expect(loser.setCookies.filter((line) => /^sessionid=[^;]/.test(line))).toEqual([]);
      const winnerPassword =
        winners[0] === firstResponse ? 'the first new passphrase' : 'the second new passphrase';
      const loserPassword =
        winners[0] === firstResponse ? 'the second new passphrase' : 'the first new passphrase';
      expect((await login(username, winnerPassword)).status).toBe(200);
      expect((await login(username, loserPassword)).status).toBe(401);
    });
  });
}
