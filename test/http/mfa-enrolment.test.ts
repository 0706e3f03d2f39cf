/**
 * Contract 3b, enrolment: TOTP start / confirm / remove, recovery codes and `GET /api/v1/mfa/`,
 * over HTTP on both transports, with real codes computed by `otpauth` from the secret the service
 * handed out, on the service's own (test) clock.
 */
import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/boot/tokens.js';
import type { User } from '../../src/domain/user/user.js';
import { auditTrailOf } from '../support/audit-trail.js';
import { LEAN_MATRIX, TRANSPORT_TARGETS } from '../support/databases.js';
import { expectProblem } from '../support/expect-problem.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const KEY = randomBytes(32).toString('base64');
const MAX_FAILURES = 3;
/** A user level in MFA_REQUIRED_LEVELS. */
const REQUIRED_LEVEL = 8;

let seq = 0;

for (const store of TRANSPORT_TARGETS) {
  describe(`MFA enrolment [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: {
          TOKEN_ENCRYPTION_KEY: KEY,
          LOGIN_MAX_FAILURES: String(MAX_FAILURES),
          MFA_REQUIRED_LEVELS: String(REQUIRED_LEVEL),
        },
      });
    });
    afterAll(() => server?.close());

    async function freshUser(userLevel: 0 | 8 = 0): Promise<User> {
      seq += 1;
      return seedUser(server, { username: `enrol${seq}-${store}`, password: PASSWORD, userLevel });
    }

    async function loggedIn(user: User): Promise<TestClient> {
      const client = new TestClient(server.url);
      expect(
        (await client.post('/api/v1/login/', { username: user.username, password: PASSWORD })).status,
      ).toBe(200);
      return client;
    }

    /** The code of `secret` for the service's now (plus `offsetS`). */
    function code(secret: string, offsetS = 0): string {
      return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
        timestamp: server.clock.now().getTime() + offsetS * 1000,
      });
    }

    async function startTotp(client: TestClient): Promise<string> {
      const response = await client.post('/api/v1/mfa/totp/', { password: PASSWORD });
      expect(response.status).toBe(200);
      return response.body.secret as string;
    }

    /** A confirmed TOTP factor; answers the secret and the recovery codes. */
    async function enrolled(client: TestClient): Promise<{ secret: string; codes: string[] }> {
      const secret = await startTotp(client);
      const response = await client.post('/api/v1/mfa/totp/confirm/', { totp: code(secret) });
      expect(response.status).toBe(200);
      return { secret, codes: response.body.recovery_codes };
    }

    /** An SSO session, made directly through the issuer (no provider needed to test the refusal). */
    async function ssoSession(user: User): Promise<TestClient> {
      const ending = server.gatehouse.container.get(TOKENS.SessionEnding);
      const issuer = server.gatehouse.container.get(TOKENS.SessionIssuer);
      const result = await ending.unit((_, end) =>
        issuer.issue(end, {
          user,
          method: 'sso',
          presentedTokens: [],
          client: { clientAddress: null, userAgent: null },
        }),
      );
      const client = new TestClient(server.url);
      client.cookies.set('sessionid', result.token);
      return client;
    }

    it('starts a TOTP enrolment: a base32 secret and its otpauth URI, not active yet', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const response = await client.post('/api/v1/mfa/totp/', { password: PASSWORD });
      expect(response.status).toBe(200);
      expect(response.body.secret).toMatch(/^[A-Z2-7]+=*$/);
      const uri = new URL(response.body.otpauth_uri);
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.searchParams.get('secret')).toBe(response.body.secret);
      expect(decodeURIComponent(uri.pathname)).toContain(user.username);
      // Not active until confirmed.
      expect((await client.get('/api/v1/mfa/')).body).toEqual({
        totp: false,
        webauthn: [],
        recovery_codes_left: 0,
        required: false,
      });
      // The secret is kept sealed, never in clear.
      const factors = await server.gatehouse.store.mfa.factorsOf(user.userId);
      expect(factors.totp?.sealedSecret).not.toContain(response.body.secret);
    });

    it('confirms with a real code: ten recovery codes, the factor active, other sessions ended, audited', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const other = await loggedIn(user);
      const secret = await startTotp(client);
      const token = client.session;
      const response = await client.post('/api/v1/mfa/totp/confirm/', { totp: code(secret) });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['recovery_codes']);
      expect(response.body.recovery_codes).toHaveLength(10);
      expect(new Set(response.body.recovery_codes).size).toBe(10);
      // The current session stays (same id); the other one is ended.
      expect(client.session).toBe(token);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expectProblem(await other.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
      expect((await client.get('/api/v1/mfa/')).body).toMatchObject({ totp: true, recovery_codes_left: 10 });
      const records = await auditTrailOf(server, user.userId);
      expect(records).toContainEqual(
        expect.objectContaining({ event: 'mfa_enrolled', outcome: 'success', reason: 'totp', actor: 'user' }),
      );
      expect(records).toContainEqual(
        expect.objectContaining({ event: 'session_revoked', reason: 'factor_changed', sessionCount: 1 }),
      );
      // Nothing of a secret or code in the trail.
      const trail = JSON.stringify(records);
      expect(trail).not.toContain(secret);
      for (const recovery of response.body.recovery_codes) expect(trail).not.toContain(recovery);
    });

    it('refuses a wrong code with 401 MFA_INVALID, and the code of a confirmation once only', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const secret = await startTotp(client);
      const right = code(secret);
      const wrong = right === '000000' ? '111111' : '000000';
      expectProblem(await client.post('/api/v1/mfa/totp/confirm/', { totp: wrong }), 401, 'MFA_INVALID');
      expect((await client.get('/api/v1/mfa/')).body.totp).toBe(false);
      expect((await client.post('/api/v1/mfa/totp/confirm/', { totp: right })).status).toBe(200);
      // Confirmed: nothing pending is left to confirm.
      expectProblem(await client.post('/api/v1/mfa/totp/confirm/', { totp: right }), 401, 'MFA_INVALID');
    });

    it('refuses a confirmation more than 5 minutes after the start', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const secret = await startTotp(client);
      server.clock.advanceSeconds(301);
      expectProblem(
        await client.post('/api/v1/mfa/totp/confirm/', { totp: code(secret) }),
        401,
        'MFA_INVALID',
      );
      expect((await client.get('/api/v1/mfa/')).body.totp).toBe(false);
    });

    it('throttles wrong codes per account: 429 after LOGIN_MAX_FAILURES', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const secret = await startTotp(client);
      const right = code(secret);
      const wrong = right === '000000' ? '111111' : '000000';
      for (let i = 0; i < MAX_FAILURES; i += 1) {
        expectProblem(await client.post('/api/v1/mfa/totp/confirm/', { totp: wrong }), 401, 'MFA_INVALID');
      }
      const refused = await client.post('/api/v1/mfa/totp/confirm/', { totp: right });
      expectProblem(refused, 429, 'TOO_MANY_ATTEMPTS');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('writes nothing of a confirmation whose audit record cannot be written (one unit)', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const other = await loggedIn(user);
      const secret = await startTotp(client);
      await server.sql.exec(
        `ALTER TABLE audit_events ADD CONSTRAINT test_refuses_enrolment CHECK (event <> 'mfa_enrolled') NOT VALID`,
      );
      try {
        expect((await client.post('/api/v1/mfa/totp/confirm/', { totp: code(secret) })).status).toBe(500);
      } finally {
        await server.sql.exec('ALTER TABLE audit_events DROP CONSTRAINT test_refuses_enrolment');
      }
      const factors = await server.gatehouse.store.mfa.factorsOf(user.userId);
      expect(factors.totp?.confirmedAt).toBeNull();
      expect(factors.recoveryCodesLeft).toBe(0);
      expect((await other.get('/api/v1/session/')).status).toBe(200);
      // Still pending, and still confirmable with a code of a later step.
      const later = await client.post('/api/v1/mfa/totp/confirm/', { totp: code(secret, 30) });
      expect(later.status).toBe(200);
      expect(later.body.recovery_codes).toHaveLength(10);
    });

    it('refuses a second app beside a confirmed one with 409 CONFLICT', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      await enrolled(client);
      expectProblem(await client.post('/api/v1/mfa/totp/', { password: PASSWORD }), 409, 'CONFLICT');
    });

    it('a wrong password is 401 AUTHENTICATION_FAILED, counts as a failed login, and changes nothing', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const { codes } = await enrolled(client);
      for (const path of ['/api/v1/mfa/totp/', '/api/v1/mfa/totp/remove/', '/api/v1/mfa/recovery-codes/']) {
        expectProblem(await client.post(path, { password: WRONG }), 401, 'AUTHENTICATION_FAILED');
      }
      expect((await client.get('/api/v1/mfa/')).body).toMatchObject({
        totp: true,
        recovery_codes_left: codes.length,
      });
      const records = await auditTrailOf(server, user.userId);
      expect(
        records.filter((record) => record.event === 'login' && record.outcome === 'failure'),
      ).toHaveLength(3);
      // The account's budget is spent: the login form is throttled too, right password or not.
      const login = await new TestClient(server.url).post('/api/v1/login/', {
        username: user.username,
        password: PASSWORD,
      });
      expectProblem(login, 429, 'TOO_MANY_ATTEMPTS');
      expect(records).toContainEqual(expect.objectContaining({ event: 'login_throttled' }));
    });

    it('removes the app after the password: other sessions end, the recovery codes go with the last factor', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      await enrolled(client);
      const other = await loggedIn(user);
      const response = await client.post('/api/v1/mfa/totp/remove/', { password: PASSWORD });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({});
      expect((await client.get('/api/v1/mfa/')).body).toMatchObject({ totp: false, recovery_codes_left: 0 });
      expectProblem(await other.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expect(await auditTrailOf(server, user.userId)).toContainEqual(
        expect.objectContaining({ event: 'mfa_removed', outcome: 'success', reason: 'totp' }),
      );
      // Nothing left to remove.
      expectProblem(await client.post('/api/v1/mfa/totp/remove/', { password: PASSWORD }), 404, 'NOT_FOUND');
    });

    it('replaces the recovery codes: ten new ones, the old ones dead, audited', async () => {
      const user = await freshUser();
      const client = await loggedIn(user);
      const { codes: old } = await enrolled(client);
      const response = await client.post('/api/v1/mfa/recovery-codes/', { password: PASSWORD });
      expect(response.status).toBe(200);
      const fresh: string[] = response.body.recovery_codes;
      expect(fresh).toHaveLength(10);
      expect(fresh.filter((value) => old.includes(value))).toEqual([]);
      const hasher = server.gatehouse.container.get(TOKENS.RecoveryCodeHasher);
      const normalised = (value: string) => value.replace(/-/g, '');
      // An old code is dead; a new one works (once).
      expect(
        await server.gatehouse.store.mfa.consumeRecoveryCode(
          user.userId,
          await hasher.hash(user.userId, normalised(old[0]!)),
        ),
      ).toBe(false);
      expect(
        await server.gatehouse.store.mfa.consumeRecoveryCode(
          user.userId,
          await hasher.hash(user.userId, normalised(fresh[0]!)),
        ),
      ).toBe(true);
      expect((await client.get('/api/v1/mfa/')).body.recovery_codes_left).toBe(9);
      expect(await auditTrailOf(server, user.userId)).toContainEqual(
        expect.objectContaining({ event: 'recovery_codes_regenerated', outcome: 'success' }),
      );
    });

    it('refuses new recovery codes to a user without a factor with 409 CONFLICT', async () => {
      const client = await loggedIn(await freshUser());
      expectProblem(
        await client.post('/api/v1/mfa/recovery-codes/', { password: PASSWORD }),
        409,
        'CONFLICT',
      );
    });

    it('GET /api/v1/mfa/ has the contract shape, `required` from MFA_REQUIRED_LEVELS', async () => {
      const user = await freshUser(REQUIRED_LEVEL);
      const client = await loggedIn(user);
      await enrolled(client);
      const response = await client.get('/api/v1/mfa/');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ totp: true, webauthn: [], recovery_codes_left: 10, required: true });
      expectProblem(await new TestClient(server.url).get('/api/v1/mfa/'), 401, 'NOT_AUTHENTICATED');
    });

    it('answers an SSO session 403 MFA_NOT_APPLICABLE on every enrolment route', async () => {
      const client = await ssoSession(await freshUser());
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      expectProblem(await client.get('/api/v1/mfa/'), 403, 'MFA_NOT_APPLICABLE');
      for (const [path, body] of [
        ['/api/v1/mfa/totp/', { password: PASSWORD }],
        ['/api/v1/mfa/totp/confirm/', { totp: '123456' }],
        ['/api/v1/mfa/totp/remove/', { password: PASSWORD }],
        ['/api/v1/mfa/recovery-codes/', { password: PASSWORD }],
      ] as const) {
        expectProblem(await client.post(path, body), 403, 'MFA_NOT_APPLICABLE');
      }
    });

    it('refuses a pending session of stage second_factor with 403 MFA_REQUIRED', async () => {
      const user = await freshUser();
      const ending = server.gatehouse.container.get(TOKENS.SessionEnding);
      const issuer = server.gatehouse.container.get(TOKENS.SessionIssuer);
      const result = await ending.unit((_, end) =>
        issuer.issue(end, {
          user,
          method: 'password',
          presentedTokens: [],
          client: { clientAddress: null, userAgent: null },
          auth: { stage: 'second_factor', amr: ['pwd'] },
        }),
      );
      const client = new TestClient(server.url);
      client.cookies.set('sessionid', result.token);
      expectProblem(await client.get('/api/v1/mfa/'), 403, 'MFA_REQUIRED');
      expectProblem(await client.post('/api/v1/mfa/totp/', { password: PASSWORD }), 403, 'MFA_REQUIRED');
    });
  });

  describe(`MFA enrolment without TOKEN_ENCRYPTION_KEY [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store });
    });
    afterAll(() => server?.close());

    it('answers TOTP enrolment 409 MFA_NOT_CONFIGURED naming the variable, before the password', async () => {
      seq += 1;
      const user = await seedUser(server, { username: `nokey${seq}`, password: PASSWORD });
      const client = new TestClient(server.url);
      await client.post('/api/v1/login/', { username: user.username, password: PASSWORD });
      for (const password of [PASSWORD, WRONG]) {
        const response = await client.post('/api/v1/mfa/totp/', { password });
        expectProblem(response, 409, 'MFA_NOT_CONFIGURED');
        expect(response.body.detail).toContain('TOKEN_ENCRYPTION_KEY');
      }
      expectProblem(
        await client.post('/api/v1/mfa/totp/confirm/', { totp: '123456' }),
        409,
        'MFA_NOT_CONFIGURED',
      );
      expect(await server.gatehouse.store.mfa.factorsOf(user.userId)).toMatchObject({ totp: null });
      // GET works without the key.
      expect((await client.get('/api/v1/mfa/')).body.totp).toBe(false);
    });
  });
}

/**
 * The login that must first set up a factor (stage `enrolment`), on every kind of session store
 * (in the process, SQL, Redis); the lean run (Node 24) once, as its store-parametrised suites are.
 */
for (const store of LEAN_MATRIX ? (['pglite'] as const) : (['memory', 'pglite', 'redis'] as const))
  describe(`MFA enrolment on a login waiting for it [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: { TOKEN_ENCRYPTION_KEY: KEY, MFA_REQUIRED_LEVELS: String(REQUIRED_LEVEL) },
      });
    });
    afterAll(() => server?.close());

    async function loggedIn(user: User): Promise<TestClient> {
      const client = new TestClient(server.url);
      expect(
        (await client.post('/api/v1/login/', { username: user.username, password: PASSWORD })).status,
      ).toBe(200);
      return client;
    }

    function code(secret: string): string {
      return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
        timestamp: server.clock.now().getTime(),
      });
    }

    async function startTotp(client: TestClient): Promise<string> {
      const response = await client.post('/api/v1/mfa/totp/', { password: PASSWORD });
      expect(response.status).toBe(200);
      return response.body.secret as string;
    }

    async function issued(user: User): Promise<TestClient> {
      const ending = server.gatehouse.container.get(TOKENS.SessionEnding);
      const issuer = server.gatehouse.container.get(TOKENS.SessionIssuer);
      const result = await ending.unit((_, end) =>
        issuer.issue(end, {
          user,
          method: 'password',
          presentedTokens: [],
          client: { clientAddress: null, userAgent: null },
          auth: { stage: 'enrolment', amr: ['pwd'] },
        }),
      );
      const client = new TestClient(server.url);
      client.cookies.set('sessionid', result.token);
      return client;
    }

    it('on a login waiting for its required enrolment: confirming answers the login, a new session id, and the codes', async () => {
      seq += 1;
      const user = await seedUser(server, {
        username: `waiting${seq}`,
        password: PASSWORD,
        userLevel: REQUIRED_LEVEL,
      });
      const other = await loggedIn(user);
      const client = await issued(user);
      const pending = client.session!;
      // A pending session is refused elsewhere, admitted on the enrolment routes.
      expectProblem(await client.get('/api/v1/session/'), 403, 'MFA_REQUIRED');
      expect((await client.get('/api/v1/mfa/')).body).toMatchObject({ totp: false, required: true });
      const secret = await startTotp(client);
      const response = await client.post('/api/v1/mfa/totp/confirm/', { totp: code(secret) });
      expect(response.status).toBe(200);
      expect(response.body.ids).toBeDefined();
      expect(response.body.profile).toMatchObject({ username: user.username, user_level: REQUIRED_LEVEL });
      expect(response.body.recovery_codes).toHaveLength(10);
      expect(client.session).toBeDefined();
      expect(client.session).not.toBe(pending);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      // The pending cookie is dead, and so is the user's other session.
      const old = new TestClient(server.url);
      old.cookies.set('sessionid', pending);
      expectProblem(await old.get('/api/v1/mfa/'), 401, 'NOT_AUTHENTICATED');
      expectProblem(await other.get('/api/v1/session/'), 401, 'NOT_AUTHENTICATED');
      const records = await auditTrailOf(server, user.userId);
      expect(records).toContainEqual(expect.objectContaining({ event: 'mfa_enrolled', reason: 'totp' }));
      expect(records).toContainEqual(expect.objectContaining({ event: 'mfa_verified', reason: 'totp' }));
    });
  });
