/**
 * The audit trail over HTTP, on both stores: each use case writes its event in the same
 * transaction as its change, and no secret (password, cookie value or its hash) ever reaches
 * the table, even a password typed into the username field.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/domain/audit/audit-event.js';
import { auditTrailOf } from '../support/audit-trail.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import { storedSessionCount, throttleAttempts } from '../support/stored.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const ANN_PASSWORD = 'ann-secret-passphrase-1';
const ANN_NEW_PASSWORD = 'ann-secret-passphrase-2';
const BOB_PASSWORD = 'bob-secret-passphrase-1';
const DIS_PASSWORD = 'dis-secret-passphrase-1';
const WRONG_PASSWORDS = ['wrong-secret-guess-1', 'wrong-secret-guess-2', 'wrong-secret-guess-3'];
/** Someone typed their password into the username field. */
const TYPED_AS_USERNAME = 'Typed-Password-In-Username-Field!';

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Event, outcome and reason of each record: the shape a reader of the trail sees. */
function summary(records: AuditRecord[]): string[] {
  return records.map((r) =>
    [r.event, r.outcome, r.reason ?? '-', r.sessionCount === null ? '' : `x${r.sessionCount}`]
      .join(' ')
      .trim(),
  );
}

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`audit trail over HTTP [${store}]`, () => {
    let server: TestServer;
    /** Every cookie value the service handed out in the scenario. */
    const cookies = new Set<string>();

    beforeAll(async () => {
      server = await startTestServer({ store, env: { LOGIN_MAX_FAILURES: '3' } });
      await seedUser(server, { username: 'ann', password: ANN_PASSWORD, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, { username: 'bob', password: BOB_PASSWORD, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, {
        username: 'dis',
        password: DIS_PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
        disabled: true,
      });
    });
    afterAll(() => server?.close());

    async function login(
      username: string,
      password: string,
    ): Promise<{ client: TestClient; status: number }> {
      const client = new TestClient(server.url);
      const response = await client.post('/api/v1/login/', { username, password });
      if (client.session) cookies.add(client.session);
      return { client, status: response.status };
    }

    async function eventsOf(username: string): Promise<AuditRecord[]> {
      const user = (await server.gatehouse.store.users.findByUsername(username))!;
      return auditTrailOf(server, user.userId);
    }

    it('records the scenario, each event with its user, reason and session handle', async () => {
      // A wrong password, a password typed as the username, a disabled account.
      expect((await login('ann', WRONG_PASSWORDS[0]!)).status).toBe(401);
      expect((await login(TYPED_AS_USERNAME, WRONG_PASSWORDS[1]!)).status).toBe(401);
      expect((await login('dis', DIS_PASSWORD)).status).toBe(401);

      // Two sessions; a password change on the first (a wrong current password first).
      const first = await login('ann', ANN_PASSWORD);
      const second = await login('ann', ANN_PASSWORD);
      expect([first.status, second.status]).toEqual([200, 200]);
      const mismatch = await first.client.post('/api/v1/password/', {
        old_password: WRONG_PASSWORDS[2],
        new_password: ANN_NEW_PASSWORD,
      });
      expect(mismatch.status).toBe(403);
      const changed = await first.client.post('/api/v1/password/', {
        old_password: ANN_PASSWORD,
        new_password: ANN_NEW_PASSWORD,
      });
      expect(changed.status).toBe(200);
      cookies.add(first.client.session!);
      expect((await first.client.post('/api/v1/logout/', {})).status).toBe(200);

      // Two more sessions; one ends the other.
      const third = await login('ann', ANN_NEW_PASSWORD);
      await login('ann', ANN_NEW_PASSWORD);
      expect((await third.client.post('/api/v1/sessions/revoke-others/', {})).body).toEqual({ revoked: 1 });

      // Bob fails three times: the third failure starts a block; the next attempt is refused.
      for (const password of WRONG_PASSWORDS) expect((await login('bob', password)).status).toBe(401);
      expect((await login('bob', BOB_PASSWORD)).status).toBe(429);

      const ann = await eventsOf('ann');
      expect(summary(ann)).toEqual([
        'login failure bad_password',
        'login success -',
        'login success -',
        'password_change failure current_password_mismatch',
        'password_change success -',
        'session_revoked success password_change x1',
        'logout success -',
        'login success -',
        'login success -',
        'session_revoked success self x1',
      ]);
      for (const record of ann) {
        expect(record).toMatchObject({ actor: 'user', clientAddress: expect.stringMatching(/127\.0\.0\.1/) });
        if (record.event !== 'logout') expect(record.username).toBe('ann');
        if (record.event === 'login' && record.outcome === 'success') {
          expect(record.method).toBe('password');
          expect(record.sessionHandle).toMatch(/^[A-Za-z0-9_-]{16}$/);
        }
      }
      // The logout names the session the password change opened.
      const handles = ann.map((record) => record.sessionHandle);
      expect(handles[6]).toBe(handles[4]);

      expect(summary(await eventsOf('dis'))).toEqual(['login failure account_disabled']);
      expect(summary(await eventsOf('bob'))).toEqual([
        'login failure bad_password',
        'login failure bad_password',
        'login failure bad_password',
        'login_throttled failure too_many_failures',
      ]);

      // The unknown username is not recorded: it may be a password.
      const { rows } = await server.sql.query<{ user_id: null; username: null }>(
        `SELECT user_id, username FROM audit_events WHERE reason = 'unknown_user'`,
      );
      expect(rows).toEqual([{ user_id: null, username: null }]);
    });

    it('no secret reaches any column: passwords, cookie values, their hashes', async () => {
      const { rows } = await server.sql.query<{ row: string }>(
        'SELECT row_to_json(a)::text AS row FROM audit_events a',
      );
      expect(rows.length).toBeGreaterThan(15);
      const table = rows.map((r) => r.row).join('\n');
      const secrets = [
        ANN_PASSWORD,
        ANN_NEW_PASSWORD,
        BOB_PASSWORD,
        DIS_PASSWORD,
        ...WRONG_PASSWORDS,
        TYPED_AS_USERNAME,
        TYPED_AS_USERNAME.toLowerCase(),
      ];
      expect(cookies.size).toBe(5);
      for (const cookie of cookies) secrets.push(cookie, sha256(cookie));
      for (const secret of secrets) expect(table).not.toContain(secret);
    });

    it('an event that cannot be written undoes the change it records (one transaction)', async () => {
      const client = server.sql;
      const sessionsBefore = await storedSessionCount(server);
      await client.exec(
        `ALTER TABLE audit_events ADD CONSTRAINT test_refuses_logins CHECK (event NOT IN ('login', 'logout')) NOT VALID`,
      );
      try {
        // A good login whose audit insert fails opens no session. A failed one still spends its
        // place in the throttle: the guess was verified, and the place was taken before (fail closed).
        const failed = await login('ann', WRONG_PASSWORDS[0]!);
        expect(failed.status).toBe(500);
        expect(await throttleAttempts(server, 'user:ann')).toBe(1);
        expect((await login('ann', ANN_NEW_PASSWORD)).status).toBe(500);
        // On Redis too: the session created before the audit insert failed is deleted again.
        expect(await storedSessionCount(server)).toBe(sessionsBefore);
      } finally {
        await client.exec('ALTER TABLE audit_events DROP CONSTRAINT test_refuses_logins');
      }
      // A logout whose audit insert fails answers 500. On the SQL store the session stays alive (one
      // transaction); on Redis it is already ended: a revocation is never undone (docs/architecture.md).
      const { client: ann } = await login('ann', ANN_NEW_PASSWORD);
      await client.exec(
        `ALTER TABLE audit_events ADD CONSTRAINT test_refuses_logouts CHECK (event <> 'logout') NOT VALID`,
      );
      try {
        expect((await ann.post('/api/v1/logout/', {})).status).toBe(500);
      } finally {
        await client.exec('ALTER TABLE audit_events DROP CONSTRAINT test_refuses_logouts');
      }
      expect((await ann.get('/api/v1/session/')).status).toBe(store === 'redis' ? 401 : 200);
    });
  });
}
