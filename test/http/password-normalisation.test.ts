/**
 * Issue 14, finding 6 (NIST SP 800-63B 5.1.1.2): a password is hashed and checked in its NFKC
 * form, so the same password typed on two keyboards (a precomposed "é" or "e" + combining acute;
 * fullwidth letters from an East Asian input method) is the same password. Hashes stored before
 * normalisation (the raw form) still verify, and are replaced by the normal form at the next login.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_TARGETS } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PRECOMPOSED = 'caf\u00e9 au lait, s\u2019il vous pla\u00eet';
const DECOMPOSED = PRECOMPOSED.normalize('NFD');
const FULLWIDTH_DIGITS = 'passphrase \uff11\uff12\uff13 and more';
const ASCII_DIGITS = 'passphrase 123 and more';

async function login(server: TestServer, username: string, password: string) {
  const client = new TestClient(server.url);
  const response = await client.post('/api/v1/login/', { username, password });
  return { client, status: response.status };
}

async function storedHash(server: TestServer, username: string): Promise<string> {
  return (await server.gatehouse.store.users.findByUsername(username))!.passwordHash!;
}

for (const store of POLICY_TARGETS) {
  describe(`password normalisation [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store });
    });
    afterAll(() => server?.close());

    it('keeps the two forms apart before the test starts (the premise)', () => {
      expect(DECOMPOSED).not.toBe(PRECOMPOSED);
      expect(DECOMPOSED.normalize('NFKC')).toBe(PRECOMPOSED);
      expect(FULLWIDTH_DIGITS.normalize('NFKC')).toBe(ASCII_DIGITS);
    });

    it('lets a password set in one form log in with the other', async () => {
      await seedUser(server, { username: 'amelie', password: ASCII_DIGITS, tenantId: 't1', groupId: 'g1' });
      const { client } = await login(server, 'amelie', ASCII_DIGITS);
      const change = await client.post('/api/v1/password/', {
        old_password: FULLWIDTH_DIGITS, // the old password, typed through an IME
        new_password: DECOMPOSED,
      });
      expect(change.status).toBe(200);
      expect((await login(server, 'amelie', PRECOMPOSED)).status).toBe(200);
      expect((await login(server, 'amelie', DECOMPOSED)).status).toBe(200);
      expect(await server.hasher.verify(await storedHash(server, 'amelie'), PRECOMPOSED)).toBe(true);
      expect((await login(server, 'amelie', 'cafe au lait, s\u2019il vous plait')).status).toBe(401);
    });

    it('refuses a new password that is the old one in another form', async () => {
      await seedUser(server, { username: 'bruno', password: PRECOMPOSED, tenantId: 't1', groupId: 'g1' });
      const { client } = await login(server, 'bruno', PRECOMPOSED);
      const change = await client.post('/api/v1/password/', {
        old_password: PRECOMPOSED,
        new_password: DECOMPOSED,
      });
      expect(change.status).toBe(400);
      expect(change.body.code).toBe('PASSWORD_POLICY');
    });

    it('verifies a hash of the raw form (stored before normalisation), then stores the normal form', async () => {
      // seedUser hashes the password as given, the way older versions did.
      await seedUser(server, { username: 'chloe', password: DECOMPOSED, tenantId: 't1', groupId: 'g1' });
      const before = await storedHash(server, 'chloe');
      expect(await server.hasher.verify(before, PRECOMPOSED)).toBe(false);

      expect((await login(server, 'chloe', DECOMPOSED)).status).toBe(200);
      const after = await storedHash(server, 'chloe');
      expect(after).not.toBe(before);
      expect(await server.hasher.verify(after, PRECOMPOSED)).toBe(true);
      expect((await login(server, 'chloe', PRECOMPOSED)).status).toBe(200);
    });
  });
}
