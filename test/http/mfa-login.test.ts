/**
 * The login in two steps (contract 3b, "Login with a second factor" and "Policy"): a right
 * password of a user with a factor gives a pending session, `POST /api/v1/mfa/verify/` turns it
 * into a login. Factors are enrolled straight through the service's own repository and sealer
 * (the enrolment routes are another piece of work); codes are computed with `otpauth` at the
 * service's test clock.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/boot/tokens.js';
import { newRecoveryCodes, normaliseRecoveryCode } from '../../src/domain/mfa/recovery-codes.js';
import { sealTotpSecret } from '../../src/domain/mfa/totp-secret-sealing.js';
import { SERVICE_STORES } from '../support/databases.js';
import { expectProblem } from '../support/expect-problem.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const PENDING_TTL_S = 120;
const KEY = Buffer.alloc(32, 7).toString('base64');

/** The first code of each step the service's clock is in, `steps` away. */
function codeAt(server: TestServer, secret: string, steps = 0): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: server.clock.now().getTime() + steps * 30_000,
  });
}

/** A confirmed TOTP factor for the user, as the enrolment would leave it; answers its secret. */
async function enrolTotp(server: TestServer, userId: string): Promise<string> {
  const { container } = server.gatehouse;
  const secret = container.get(TOKENS.TotpAuthenticator).newSecret();
  const factorId = `f-${userId}`;
  const sealedSecret = sealTotpSecret(container.get(TOKENS.TotpSecretSealer), secret, { userId, factorId });
  const now = server.clock.now();
  expect(await server.store.mfa.addPendingTotp({ factorId, userId, sealedSecret, createdAt: now })).toBe(
    'added',
  );
  // Confirmed with a code of some minutes ago: codes of now are still unused.
  const confirmedStep = Math.floor(now.getTime() / 30_000) - 10;
  expect(await server.store.mfa.confirmTotp(userId, factorId, confirmedStep, now)).toBe(true);
  return secret;
}

async function giveRecoveryCodes(server: TestServer, userId: string): Promise<string[]> {
  const { container } = server.gatehouse;
  const codes = newRecoveryCodes(container.get(TOKENS.Random));
  const hasher = container.get(TOKENS.RecoveryCodeHasher);
  const hashes = await Promise.all(codes.map((code) => hasher.hash(userId, normaliseRecoveryCode(code)!)));
  await server.store.mfa.replaceRecoveryCodes(userId, hashes, server.clock.now());
  return codes;
}

async function metric(server: TestServer, method: string, outcome: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', server.url))).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`gatehouse_mfa_total{method="${method}",outcome="${outcome}"}`));
  expect(line, `${method} ${outcome}`).toBeDefined();
  return Number(line!.split(' ').pop());
}

/**
 * The pending session, its stage and its replacement by the full one live in the session store:
 * SERVICE_STORES (SQL on Koa, Redis, PGlite on Fastify). PGlite on Koa would meet no new code (the
 * SQL adapters' contract suites run on both engines); the in-memory store's two-step login is met
 * by the POLICY_TARGETS suites (webauthn.test.ts "as the second factor", pending-everywhere,
 * step-up) and its enrolment stage by mfa-enrolment.test.ts.
 */
for (const store of SERVICE_STORES) {
  describe(`login with a second factor [${store}]`, () => {
    let server: TestServer;
    const secrets = new Map<string, string>();
    const recovery = new Map<string, string[]>();

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: {
          TOKEN_ENCRYPTION_KEY: KEY,
          MFA_PENDING_TTL_S: String(PENDING_TTL_S),
          MFA_REQUIRED_LEVELS: '16',
          LOGIN_MAX_FAILURES: '3',
          METRICS_ON_MAIN_PORT: 'true',
        },
      });
      const base = { password: PASSWORD, tenantId: 't1', groupId: 'g1', phoneNumber: '+33 1 23 45 67 89' };
      for (const name of ['ann', 'bob', 'cid', 'dan', 'eve', 'fay', 'gus', 'hal']) {
        const user = await seedUser(server, { ...base, username: name, userId: `u-${name}` });
        secrets.set(name, await enrolTotp(server, user.userId));
        recovery.set(name, await giveRecoveryCodes(server, user.userId));
      }
      await seedUser(server, { ...base, username: 'plain', userId: 'u-plain' });
      await seedUser(server, { password: PASSWORD, username: 'root', userId: 'u-root', userLevel: 16 });
    });
    afterAll(() => server?.close());

    async function firstStep(username: string) {
      const client = new TestClient(server.url);
      const response = await client.post('/api/v1/login/', { username, password: PASSWORD });
      return { client, response };
    }

    it('answers a right password of a user with a factor with a pending session and the small profile only', async () => {
      const { client, response } = await firstStep('ann');
      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({
        ids: {},
        profile: {
          user_level: 0,
          is_first_login: true,
          username: 'ann',
          mfa_required: true,
          mfa_methods: ['totp', 'recovery_code'],
        },
      });
      // One cookie: the pending session's, marked, living MFA_PENDING_TTL_S; no device proof yet.
      expect(response.setCookies).toHaveLength(1);
      expect(response.setCookies[0]).toMatch(
        new RegExp(`^sessionid=mfa\\.[A-Za-z0-9_-]{43};.*Max-Age=${PENDING_TTL_S}`),
      );
      // Never a login anywhere but the second step.
      expectProblem(await client.get('/api/v1/session/'), 403, 'MFA_REQUIRED');
      expectProblem(await client.get('/api/v1/sessions/'), 403, 'MFA_REQUIRED');
    });

    it('exposes every gatehouse_mfa_total pair from the start', async () => {
      for (const method of ['totp', 'webauthn', 'recovery_code']) {
        for (const outcome of ['success', 'invalid', 'throttled']) {
          expect(await metric(server, method, outcome)).toBeGreaterThanOrEqual(0);
        }
      }
      expect(await metric(server, 'webauthn', 'throttled')).toBe(0);
    });

    it('finishes the login with a TOTP code: the full answer, a new session id, the pending one dead', async () => {
      const { client } = await firstStep('bob');
      const pending = client.session!;
      const response = await client.post('/api/v1/mfa/verify/', {
        totp: codeAt(server, secrets.get('bob')!),
      });
      expect(response.status).toBe(200);
      expect(response.body.ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1', user_id: 'u-bob' });
      expect(response.body.profile).toMatchObject({
        username: 'bob',
        is_first_login: true,
        phoneNumber: '+33 1 23 45 67 89',
      });
      expect(response.body.profile.mfa_required).toBeUndefined();
      // The session cookie and the device proof, as a one-step login sets them.
      expect(response.setCookies.map((line) => line.split('=')[0]).sort()).toEqual(
        ['sessionid', 'sessionid_device'].sort(),
      );
      expect(client.session).not.toBe(pending);
      expect(client.session).not.toMatch(/^mfa\./);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expectProblem(
        await new TestClient(server.url).get('/api/v1/session/', { cookie: `sessionid=${pending}` }),
        401,
        'NOT_AUTHENTICATED',
      );
      // A full session has no second step to take.
      expectProblem(await client.post('/api/v1/mfa/verify/', { totp: '123456' }), 403, 'MFA_NOT_APPLICABLE');
      expect(server.logs).toContainEqual(
        expect.objectContaining({
          event: 'mfa_checked',
          method: 'totp',
          outcome: 'success',
          userId: 'u-bob',
        }),
      );
      const events = await server.store.audit.listForUser('u-bob', { limit: 1000 });
      expect(events.map((event) => [event.event, event.outcome, event.reason])).toEqual(
        expect.arrayContaining([
          ['login', 'success', 'second_factor'],
          ['mfa_verified', 'success', 'totp'],
        ]),
      );
      // One record tells the pending session's end and the login it became: `mfa_verified` names
      // the new session, and no separate revocation record is written for the pending one.
      expect(events.filter((event) => event.reason === 'mfa_completed')).toEqual([]);
      const listed = (await client.get('/api/v1/sessions/')).body as {
        sessions: { handle: string; current: boolean }[];
      };
      const current = listed.sessions.find((session) => session.current)!;
      expect(events.find((event) => event.event === 'mfa_verified')?.sessionHandle).toBe(current.handle);
    });

    it('accepts a TOTP code once: the same step again is MFA_INVALID, the next one logs in', async () => {
      const secret = secrets.get('cid')!;
      const code = codeAt(server, secret);
      expect((await (await firstStep('cid')).client.post('/api/v1/mfa/verify/', { totp: code })).status).toBe(
        200,
      );
      const { client } = await firstStep('cid');
      expectProblem(await client.post('/api/v1/mfa/verify/', { totp: code }), 401, 'MFA_INVALID');
      // The pending session survives a wrong code: the user tries again.
      server.clock.advanceSeconds(30);
      expect((await client.post('/api/v1/mfa/verify/', { totp: codeAt(server, secret) })).status).toBe(200);
    });

    it('lets one of two second steps racing with the same code through, never both', async () => {
      const [one, two] = await Promise.all([firstStep('hal'), firstStep('hal')]);
      const code = codeAt(server, secrets.get('hal')!);
      const answers = await Promise.all(
        [one, two].map(({ client }) => client.post('/api/v1/mfa/verify/', { totp: code })),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    });

    it('accepts a recovery code once ever, however it is typed', async () => {
      const [code] = recovery.get('dan')!;
      const typed = ` ${code!.toUpperCase().replace(/-/g, ' ')} `;
      const first = await firstStep('dan');
      const response = await first.client.post('/api/v1/mfa/verify/', { recovery_code: typed });
      expect(response.status).toBe(200);
      expect(response.body.profile.username).toBe('dan');
      const second = await firstStep('dan');
      expectProblem(
        await second.client.post('/api/v1/mfa/verify/', { recovery_code: code }),
        401,
        'MFA_INVALID',
      );
      // Refused before the pending session is replaced, on every store (Redis and memory sessions
      // are outside the unit's transaction): the same pending session finishes with another factor.
      const totp = codeAt(server, secrets.get('dan')!, 1);
      expect((await second.client.post('/api/v1/mfa/verify/', { totp })).status).toBe(200);
      const events = await server.store.audit.listForUser('u-dan', { limit: 1000 });
      expect(events.filter((event) => event.event === 'recovery_code_used')).toHaveLength(1);
      expect(events.map((event) => [event.event, event.outcome, event.reason])).toEqual(
        expect.arrayContaining([
          ['mfa_verified', 'success', 'recovery_code'],
          ['mfa_verified', 'failure', 'recovery_code'],
        ]),
      );
    });

    it('refuses wrong factors with 401, then throttles the account with 429 and Retry-After', async () => {
      const invalidBefore = await metric(server, 'totp', 'invalid');
      const throttledBefore = await metric(server, 'totp', 'throttled');
      const { client } = await firstStep('eve');
      const right = codeAt(server, secrets.get('eve')!);
      const wrong = right === '000000' ? '000001' : '000000';
      expectProblem(await client.post('/api/v1/mfa/verify/', { totp: wrong }), 401, 'MFA_INVALID');
      // What cannot be a code is a wrong factor too, and counts as one.
      expectProblem(await client.post('/api/v1/mfa/verify/', { totp: 'abcdef' }), 401, 'MFA_INVALID');
      expectProblem(await client.post('/api/v1/mfa/verify/', { recovery_code: 'nope' }), 401, 'MFA_INVALID');
      // The budget is the account's, whichever pending session asks; a right code waits too.
      const again = await firstStep('eve');
      const throttled = await again.client.post('/api/v1/mfa/verify/', { totp: right });
      expectProblem(throttled, 429, 'TOO_MANY_ATTEMPTS');
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(throttled.setCookies).toEqual([]);
      expect(await metric(server, 'totp', 'invalid')).toBe(invalidBefore + 2);
      expect(await metric(server, 'totp', 'throttled')).toBe(throttledBefore + 1);
      const events = await server.store.audit.listForUser('u-eve', { limit: 1000 });
      expect(
        events.filter((event) => event.event === 'mfa_verified' && event.outcome === 'failure'),
      ).toHaveLength(3);
      // Never for good: after the window, the right code logs in.
      server.clock.advanceSeconds(901);
      const later = await firstStep('eve');
      expect(
        (await later.client.post('/api/v1/mfa/verify/', { totp: codeAt(server, secrets.get('eve')!) }))
          .status,
      ).toBe(200);
      expect(await metric(server, 'totp', 'success')).toBeGreaterThan(0);
    });

    it('refuses a body without exactly one factor with 400, and WebAuthn on a service without a relying party with 409', async () => {
      const { client } = await firstStep('fay');
      expectProblem(await client.post('/api/v1/mfa/verify/', {}), 400, 'INVALID_REQUEST');
      expectProblem(
        await client.post('/api/v1/mfa/verify/', { totp: '123456', recovery_code: 'x' }),
        400,
        'INVALID_REQUEST',
      );
      expectProblem(await client.post('/api/v1/mfa/verify/', { totp: 123456 }), 400, 'INVALID_REQUEST');
      expectProblem(
        await client.post('/api/v1/mfa/verify/', { webauthn: { id: 'x' } }),
        409,
        'MFA_NOT_CONFIGURED',
      );
      expectProblem(
        await new TestClient(server.url).post('/api/v1/mfa/verify/', { totp: '123456' }),
        401,
        'NOT_AUTHENTICATED',
      );
      // None of them spent the budget or the session.
      expect(
        (await client.post('/api/v1/mfa/verify/', { totp: codeAt(server, secrets.get('fay')!) })).status,
      ).toBe(200);
    });

    it('ends the pending session after MFA_PENDING_TTL_S, and on logout', async () => {
      const { client } = await firstStep('gus');
      server.clock.advanceSeconds(PENDING_TTL_S + 1);
      expectProblem(
        await client.post('/api/v1/mfa/verify/', { totp: codeAt(server, secrets.get('gus')!) }),
        401,
        'NOT_AUTHENTICATED',
      );
      const other = await firstStep('gus');
      const pending = other.client.session!;
      expect((await other.client.post('/api/v1/logout/', {})).status).toBe(200);
      expectProblem(
        await new TestClient(server.url).post(
          '/api/v1/mfa/verify/',
          { totp: codeAt(server, secrets.get('gus')!) },
          { cookie: `sessionid=${pending}` },
        ),
        401,
        'NOT_AUTHENTICATED',
      );
    });

    it('gives a user of a required level without a factor a pending session of the enrolment stage', async () => {
      const { client, response } = await firstStep('root');
      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({
        ids: {},
        profile: {
          user_level: 16,
          is_first_login: true,
          username: 'root',
          mfa_required: true,
          mfa_methods: [],
          mfa_enrollment_required: true,
        },
      });
      expect(client.session).toMatch(/^mfa\./);
      expectProblem(await client.get('/api/v1/session/'), 403, 'MFA_REQUIRED');
    });

    it('refuses the second step to a session waiting for an enrolment', async () => {
      const { client } = await firstStep('root');
      // Not a second step: there is no factor to prove yet.
      expectProblem(await client.post('/api/v1/mfa/verify/', { totp: '123456' }), 403, 'MFA_REQUIRED');
    });

    it("keeps the factors through an administrator's new password: the next login still asks for one (ASVS 6.4.3)", async () => {
      const user = await seedUser(server, {
        password: PASSWORD,
        username: 'ivy',
        userId: 'u-ivy',
        tenantId: 't1',
      });
      await enrolTotp(server, user.userId);
      const replaced = 'a password the administrator set for ivy';
      await server.gatehouse.container.get(TOKENS.AdminUsers).setPassword('ivy', replaced);
      const response = await new TestClient(server.url).post('/api/v1/login/', {
        username: 'ivy',
        password: replaced,
      });
      expect(response.status).toBe(200);
      expect(response.body.profile).toMatchObject({ mfa_required: true, mfa_methods: ['totp'] });
      expect(response.body.ids).toStrictEqual({});
    });

    it('keeps what the session proved through a password change (the rotated session keeps its amr and auth_time)', async () => {
      const user = await seedUser(server, {
        password: PASSWORD,
        username: 'jay',
        userId: 'u-jay',
        tenantId: 't1',
      });
      const secret = await enrolTotp(server, user.userId);
      const { client } = await firstStep('jay');
      expect((await client.post('/api/v1/mfa/verify/', { totp: codeAt(server, secret) })).status).toBe(200);
      const before = (await client.get('/api/v1/session/')).body.session;
      expect(before.amr).toEqual(['pwd', 'otp']);
      const changed = await client.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: 'the new passphrase of jay',
      });
      expect(changed.status).toBe(200);
      expect((await client.get('/api/v1/session/')).body.session).toStrictEqual(before);
    });

    it('logs a user without a factor (not required) in at once, as before', async () => {
      const { client, response } = await firstStep('plain');
      expect(response.status).toBe(200);
      expect(response.body.ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1', user_id: 'u-plain' });
      expect(response.body.profile.mfa_required).toBeUndefined();
      expect(response.body.profile.phoneNumber).toBe('+33 1 23 45 67 89');
      expect(client.session).not.toMatch(/^mfa\./);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
    });
  });
}

describe('a store outage in the middle of the second step [pglite]', () => {
  let server: TestServer;
  let secret: string;

  beforeAll(async () => {
    server = await startTestServer({ store: 'pglite', env: { TOKEN_ENCRYPTION_KEY: KEY } });
    await seedUser(server, { username: 'ann', userId: 'u-ann', password: PASSWORD, tenantId: 't1' });
    secret = await enrolTotp(server, 'u-ann');
  });
  afterAll(() => server?.close());

  it('answers 503 with Retry-After, spends nothing and leaves the pending session as it was', async () => {
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    const pending = client.session!;
    // The database goes away when the code's step is accepted, inside the unit that would end the
    // pending session and issue the full one.
    await server.sql.query(`CREATE FUNCTION outage() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'gone' USING ERRCODE = '57P03'; END $$`);
    await server.sql.query(
      'CREATE TRIGGER outage BEFORE UPDATE ON mfa_totp_factors FOR EACH ROW EXECUTE FUNCTION outage()',
    );
    const code = codeAt(server, secret);
    const refused = await client.post('/api/v1/mfa/verify/', { totp: code });
    expectProblem(refused, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.setCookies).toEqual([]);
    await server.sql.query('DROP TRIGGER outage ON mfa_totp_factors');
    // The same session and the same code: neither was spent.
    expect(client.session).toBe(pending);
    const response = await client.post('/api/v1/mfa/verify/', { totp: code });
    expect(response.status).toBe(200);
  });
});
