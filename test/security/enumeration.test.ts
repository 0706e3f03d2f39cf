/**
 * No user enumeration (ASVS 6.3.8): an unknown user, a wrong password, a disabled account (with
 * its right password or not) and an account without a password get byte-identical answers
 * (request id aside) with identical headers (Date and X-Request-Id aside), and run the same work:
 * exactly one argon2id verification each, a dummy one when there is no hash to check, with the
 * same parameters as a real one. Throttled answers do not tell them apart either. Timings are not
 * asserted here: the benchmark reports their distributions (scripts/bench).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POLICY_TARGETS } from '../support/databases.js';
import { seedUser, startTestServer, type TestServer } from '../support/test-server.js';
import { problemViolation, type RawResponse, send } from './support.js';

const PASSWORD = 'correct horse battery staple';
const MAX_FAILURES = 4;

/** The argon2id parameters of a PHC string: `m=...,t=...,p=...`. */
function argon2Params(phc: string): string {
  const match = /^\$argon2id\$v=19\$(m=\d+,t=\d+,p=\d+)\$/.exec(phc);
  expect(match, phc).not.toBeNull();
  return match![1]!;
}

/** The answer with the per-request parts taken out: what an attacker could compare. */
function comparable(response: RawResponse) {
  const requestId = String(response.headers['x-request-id']);
  const headers = Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => name !== 'date' && name !== 'x-request-id'),
  );
  return { status: response.status, headers, body: response.text.replaceAll(requestId, '<request-id>') };
}

for (const store of POLICY_TARGETS) {
  describe(`no user enumeration [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store, env: { LOGIN_MAX_FAILURES: String(MAX_FAILURES) } });
      for (const name of ['ann', 'ann2', 'ann3']) {
        await seedUser(server, { username: name, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      }
      for (const name of ['dis', 'dis2', 'dis3']) {
        await seedUser(server, {
          username: name,
          password: PASSWORD,
          tenantId: 't1',
          groupId: 'g1',
          disabled: true,
        });
      }
      await seedUser(server, { username: 'nopass', userLevel: 8, tenantId: 't1', groupId: 'g1' });
    }, 60_000);
    afterAll(() => server?.close());

    const login = (username: string, password: string) =>
      send(server.url, '/api/v1/login/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'enumeration-test' },
        body: JSON.stringify({ username, password }),
      });

    it('answers unknown user, wrong password, disabled and password-less accounts byte for byte alike', async () => {
      const cases = {
        'unknown user': await login('nobody-here', PASSWORD),
        'unknown user, other case': await login('NOBODY-ELSE', 'whatever it is'),
        'wrong password': await login('ann', 'not the password at all'),
        'disabled account, right password': await login('dis', PASSWORD),
        'disabled account, wrong password': await login('dis2', 'not the password at all'),
        'account without a password': await login('nopass', PASSWORD),
      };
      const reference = comparable(cases['unknown user']);
      expect(reference.status).toBe(401);
      expect(JSON.parse(reference.body)).toMatchObject({ code: 'AUTHENTICATION_FAILED' });
      for (const [name, response] of Object.entries(cases)) {
        expect(problemViolation(response, 'POST'), name).toBeNull();
        expect(response.setCookies, name).toEqual([]);
        expect(comparable(response), name).toEqual(reference);
      }
    });

    it('verifies exactly one argon2id hash in every case: a dummy one, of the same cost, when there is none', async () => {
      const verify = vi.spyOn(server.hasher, 'verify');
      const verifyDummy = vi.spyOn(server.hasher, 'verifyDummy');
      const work = async (username: string, password: string) => {
        verify.mockClear();
        verifyDummy.mockClear();
        const response = await login(username, password);
        // A verification against a hash the hasher cannot use falls back to the dummy itself.
        const dummyInsideVerify = verifyDummy.mock.calls.length > 0 && verify.mock.calls.length > 0;
        return {
          status: response.status,
          hashes: verify.mock.calls.length + verifyDummy.mock.calls.length - (dummyInsideVerify ? 1 : 0),
          dummy: verifyDummy.mock.calls.length > 0 && !dummyInsideVerify,
        };
      };
      try {
        expect(await work('nobody-at-all', PASSWORD)).toEqual({ status: 401, hashes: 1, dummy: true });
        expect(await work('nopass', PASSWORD)).toEqual({ status: 401, hashes: 1, dummy: true });
        expect(await work('ann2', 'not the password at all')).toEqual({
          status: 401,
          hashes: 1,
          dummy: false,
        });
        expect(await work('dis3', PASSWORD)).toEqual({ status: 401, hashes: 1, dummy: false });
        // A success costs the same single verification.
        expect(await work('ann3', PASSWORD)).toEqual({ status: 200, hashes: 1, dummy: false });
        for (const call of verifyDummy.mock.results) await expect(call.value).resolves.toBe(false);
      } finally {
        verify.mockRestore();
        verifyDummy.mockRestore();
      }
      // The dummy hash has the parameters of a real one, so it costs the same work.
      const stored = (await server.gatehouse.store.users.findByUsername('ann'))!.passwordHash!;
      const dummy = await (server.hasher as unknown as { getDummyHash(): Promise<string> }).getDummyHash();
      expect(argon2Params(dummy)).toBe(argon2Params(stored));
    });

    it('throttles unknown, known and disabled usernames alike: the same 429 for each', async () => {
      const throttled: Record<string, RawResponse> = {};
      for (const username of ['ghost-user', 'ann', 'dis']) {
        // Earlier tests may have counted failures already; go until the throttle answers.
        let response = await login(username, 'not the password at all');
        for (let attempt = 0; attempt < MAX_FAILURES + 1 && response.status !== 429; attempt++) {
          response = await login(username, 'not the password at all');
        }
        throttled[username] = response;
      }
      const reference = comparable(throttled['ghost-user']!);
      expect(reference.status).toBe(429);
      expect(JSON.parse(reference.body)).toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
      for (const [name, response] of Object.entries(throttled)) {
        expect(problemViolation(response, 'POST'), name).toBeNull();
        expect(response.headers['retry-after'], name).toMatch(/^[1-9]\d*$/);
        expect(comparable(response), name).toEqual(reference);
      }
    });
  });
}
