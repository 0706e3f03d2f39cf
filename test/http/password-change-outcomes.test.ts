/**
 * What a password change leaves behind besides its answer, each asserted on its own: the refusals'
 * texts, the events it logs, the audit records (a change that ended no other session records no
 * revocation; a wrong current password that spends the last attempt records the block), and a
 * change whose compare-and-set lost to a password set meanwhile (refused, the session kept).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import { openTestStore } from '../support/databases.js';
import { HookedHasher } from '../support/hooked-hasher.js';
import { seedUser, startTestServer, TEST_ENV, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 42';

describe('a password change, besides its answer', () => {
  let server: TestServer;
  let sql: SqlClient;
  const hasher = new HookedHasher(new Argon2PasswordHasher(loadConfig(TEST_ENV).password.argon2));
  let seq = 0;

  beforeAll(async () => {
    sql = await openTestStore('pglite');
    server = await startTestServer({
      sqlClient: sql,
      passwordHasher: hasher,
      env: { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_S: '900' },
    });
  });
  afterAll(() => server?.close());

  async function loggedIn(
    names: { firstName?: string; lastName?: string; emailAddress?: string } = {},
  ): Promise<{ userId: string; username: string; client: TestClient }> {
    seq += 1;
    const username = `changer${seq}`;
    const { userId } = await seedUser(server, {
      username,
      password: PASSWORD,
      tenantId: 't1',
      groupId: 'g1',
      ...names,
    });
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
    return { userId, username, client };
  }
  const change = (client: TestClient, oldPassword: string, newPassword: string) =>
    client.post('/api/v1/password/', { old_password: oldPassword, new_password: newPassword });
  const logged = (before: number, event: string) =>
    server.logs.slice(before).filter((line) => line.event === event);
  const audited = async (userId: string, event: string) =>
    (await server.gatehouse.store.audit.listForUser(userId, { limit: 100 })).filter(
      (record) => record.event === event,
    );

  it('refuses a wrong current password with its text, logs it, and records the block it causes', async () => {
    const { userId, client } = await loggedIn();
    const before = server.logs.length;
    const first = await change(client, 'not the current one', NEW_PASSWORD);
    expect(first.status).toBe(403);
    expect(first.body).toMatchObject({
      code: 'CURRENT_PASSWORD_MISMATCH',
      detail: 'The current password is incorrect.',
    });
    expect(logged(before, 'login_failed')).toEqual([
      expect.objectContaining({ method: 'password', reason: 'current_password_mismatch', userId }),
    ]);
    expect(await audited(userId, 'login_throttled')).toEqual([]);
    // The third wrong one takes the account's last attempt: the block is recorded.
    await change(client, 'not the current one', NEW_PASSWORD);
    await change(client, 'not the current one', NEW_PASSWORD);
    expect(await audited(userId, 'login_throttled')).toEqual([
      expect.objectContaining({ outcome: 'failure', reason: 'too_many_failures', actor: 'user' }),
    ]);
  });

  it('refuses a new password equal to the current one, saying so', async () => {
    const { client } = await loggedIn();
    const response = await change(client, PASSWORD, PASSWORD);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'PASSWORD_POLICY',
      detail: 'The new password does not meet the password policy.',
    });
    expect(response.body.errors).toEqual([
      { path: 'new_password', message: 'must differ from the current password' },
    ]);
  });

  it('refuses a new password built on the user’s first name, last name or email address', async () => {
    const { client } = await loggedIn({
      firstName: 'Zebulonia',
      lastName: 'Quintanilla',
      emailAddress: 'rosalind.quintanilla@example.org',
    });
    // Guessable only for this user: the strength check is given the user's own names.
    for (const candidate of ['Zebulonia#1999', 'Quintanilla#1999', 'rosalind.quintanilla@example.org']) {
      const response = await change(client, PASSWORD, candidate);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        {
          path: 'new_password',
          message:
            'is too easy to guess: There should not be any personal or page related data. Add more words that are less common.',
        },
      ]);
    }
    // The same password is fine for someone else.
    const other = await loggedIn();
    expect((await change(other.client, PASSWORD, 'Quintanilla#1999')).status).toBe(200);
  });

  it('keeps the first-login mark as it was: a user without one (users restored from a backup) gets none', async () => {
    const { userId, client } = await loggedIn();
    // The users' table restored from before this user's first login, the session kept.
    await sql.query('UPDATE users SET first_login_at = NULL WHERE user_id = $1', [userId]);
    const response = await change(client, PASSWORD, NEW_PASSWORD);
    expect(response.status).toBe(200);
    expect(response.body.profile.is_first_login).toBe(false);
    expect((await server.gatehouse.store.users.findByUserId(userId))!.firstLoginAt).toBeNull();
    expect((await client.get('/api/v1/session/')).body.profile.is_first_login).toBe(false);
  });

  it('logs the change and the sessions it ended; records no revocation when no other session ended', async () => {
    const { userId, client } = await loggedIn();
    const before = server.logs.length;
    expect((await change(client, PASSWORD, NEW_PASSWORD)).status).toBe(200);
    expect(logged(before, 'password_changed')).toEqual([expect.objectContaining({ userId })]);
    expect(logged(before, 'session_ended')).toEqual([
      expect.objectContaining({ userId, reason: 'password_changed', count: 1 }),
    ]);
    expect(await audited(userId, 'password_change')).toHaveLength(1);
    expect(await audited(userId, 'session_revoked')).toEqual([]);
  });

  it('counts and records the other sessions it ended', async () => {
    const { userId, username, client } = await loggedIn();
    for (let i = 0; i < 2; i++) {
      expect(
        (await new TestClient(server.url).post('/api/v1/login/', { username, password: PASSWORD })).status,
      ).toBe(200);
    }
    const before = server.logs.length;
    expect((await change(client, PASSWORD, NEW_PASSWORD)).status).toBe(200);
    expect(logged(before, 'session_ended')).toEqual([
      expect.objectContaining({ userId, reason: 'password_changed', count: 3 }),
    ]);
    expect(await audited(userId, 'session_revoked')).toEqual([
      expect.objectContaining({ reason: 'password_change', sessionCount: 2 }),
    ]);
  });

  it('loses to a password set while its hash was computed: refused, and the session kept', async () => {
    const { userId, client } = await loggedIn();
    const setMeanwhile = await hasher.hash('set by an administrator meanwhile');
    hasher.onHashed = async () => {
      await server.gatehouse.store.users.setPassword(userId, setMeanwhile, {
        mustChange: false,
        now: new Date(server.clock.now().getTime() + 1000),
      });
    };
    const response = await change(client, PASSWORD, NEW_PASSWORD);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('CURRENT_PASSWORD_MISMATCH');
    expect((await client.get('/api/v1/session/')).status).toBe(200);
  });

  it('answers a session revoked while its hash was computed with the text of a missing session', async () => {
    const { client } = await loggedIn();
    const tokenHash = hashSessionToken(client.session!);
    hasher.onHashed = async () => {
      await server.store.sessions.deleteByTokenHash(tokenHash);
    };
    const response = await change(client, PASSWORD, NEW_PASSWORD);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      code: 'NOT_AUTHENTICATED',
      detail: 'No valid session. Log in first.',
    });
  });
});
