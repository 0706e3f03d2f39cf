/**
 * Issue 14, finding 2: several session cookies in one request. A cookie set from a sibling
 * subdomain (`Domain=.example`) is sent first, so "the first wins" let an attacker make a victim
 * act as the attacker's account, and a planted junk value locked the victim out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_TARGETS } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const JUNK = 'A'.repeat(43);

for (const store of POLICY_TARGETS) {
  describe(`several session cookies in one request [${store}]`, () => {
    let server: TestServer;
    let victimId: string;
    let attackerId: string;

    beforeAll(async () => {
      server = await startTestServer({ store });
      victimId = (
        await seedUser(server, { username: 'victim', password: PASSWORD, tenantId: 't1', groupId: 'g1' })
      ).userId;
      attackerId = (
        await seedUser(server, { username: 'attacker', password: PASSWORD, tenantId: 't1', groupId: 'g1' })
      ).userId;
    });
    afterAll(() => server?.close());

    async function sessionOf(username: string): Promise<string> {
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      return client.session!;
    }
    const withCookies = (...values: string[]) => ({
      cookie: values.map((value) => `sessionid=${value}`).join('; '),
    });
    const whoAmI = (...values: string[]) =>
      new TestClient(server.url).get('/api/v1/session/', withCookies(...values));

    it('uses the one live session whatever its place; junk, unknown or ended values beside it do no harm', async () => {
      const victim = await sessionOf('victim');
      const ended = await sessionOf('victim');
      expect((await new TestClient(server.url).post('/api/v1/logout/', {}, withCookies(ended))).status).toBe(
        200,
      );
      for (const values of [
        [JUNK, victim],
        ['not-even-base64url!', victim],
        [ended, victim, JUNK],
        [victim, 'x'],
      ]) {
        const response = await whoAmI(...values);
        expect(response.status).toBe(200);
        expect(response.body.profile.username).toBe('victim');
      }
    });

    it('uses none when two are live (401), and warns with the count', async () => {
      const victim = await sessionOf('victim');
      const planted = await sessionOf('attacker');
      const before = server.logs.length;
      const response = await whoAmI(planted, victim);
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('NOT_AUTHENTICATED');
      const warnings = server.logs.slice(before).filter((line) => line.event === 'session_cookies_ambiguous');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40, live: 2, presented: 2 });
      // Each on its own is still a live session: nothing was ended.
      expect((await whoAmI(victim)).status).toBe(200);
      expect((await whoAmI(planted)).status).toBe(200);
    });

    it('a logout with a junk cookie in front ends the live session', async () => {
      const victim = await sessionOf('victim');
      expect(
        (await new TestClient(server.url).post('/api/v1/logout/', {}, withCookies(JUNK, victim))).status,
      ).toBe(200);
      expect((await whoAmI(victim)).status).toBe(401);
    });

    it('a logout presenting two live session cookies ends neither', async () => {
      const victim = await sessionOf('victim');
      const planted = await sessionOf('attacker');
      const response = await new TestClient(server.url).post(
        '/api/v1/logout/',
        {},
        withCookies(planted, victim),
      );
      expect(response.status).toBe(200);
      expect(response.setCookies.some((line) => /^sessionid=;/.test(line))).toBe(true);
      expect((await whoAmI(victim)).status).toBe(200);
      expect((await whoAmI(planted)).status).toBe(200);
      // Each on its own is ended by a logout.
      for (const token of [victim, planted]) {
        expect(
          (await new TestClient(server.url).post('/api/v1/logout/', {}, withCookies(token))).status,
        ).toBe(200);
        expect((await whoAmI(token)).status).toBe(401);
      }
    });

    it('a login sent with another account’s session cookie ends that session, audited for its owner', async () => {
      const planted = await sessionOf('attacker');
      const client = new TestClient(server.url);
      const response = await client.post(
        '/api/v1/login/',
        { username: 'victim', password: PASSWORD },
        withCookies(planted),
      );
      expect(response.status).toBe(200);
      expect((await whoAmI(planted)).status).toBe(401);
      const events = await server.gatehouse.store.audit.listForUser(attackerId, { limit: 50 });
      expect(
        events.filter((event) => event.event === 'session_revoked' && event.reason === 'replaced_by_login'),
      ).toHaveLength(1);
      expect(victimId).not.toBe(attackerId);
    });
  });
}

describe('the start-up warning about the cookie name', () => {
  it('warns when COOKIE_SECURE is on and COOKIE_NAME lacks __Host-, and not otherwise', async () => {
    const plain = await startTestServer({ env: { COOKIE_SECURE: 'true', COOKIE_NAME: 'sessionid' } });
    const prefixed = await startTestServer({
      env: { COOKIE_SECURE: 'true', COOKIE_NAME: '__Host-sessionid' },
    });
    try {
      const warned = (server: TestServer) =>
        server.logs.filter((line) => line.event === 'cookie_name_without_host_prefix');
      expect(warned(plain)).toHaveLength(1);
      expect(warned(plain)[0]).toMatchObject({ level: 40, cookie_name: 'sessionid' });
      expect(warned(prefixed)).toHaveLength(0);
    } finally {
      await plain.close();
      await prefixed.close();
    }
  });
});
