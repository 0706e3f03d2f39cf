/**
 * The session authenticator beyond the HTTP session check: one cookie value given as a string, or
 * none at all (null, undefined, empty), and the refusal's text; the session view (no phone
 * number, the first login said only by the session that recorded it, and by none when the user
 * has no first login on record).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { openTestStore } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

describe('the session authenticator', () => {
  let server: TestServer;
  let sql: SqlClient;

  beforeAll(async () => {
    sql = await openTestStore('pglite');
    server = await startTestServer({ sqlClient: sql, env: { METRICS_ON_MAIN_PORT: 'true' } });
  });
  afterAll(() => server?.close());

  let seq = 0;
  async function newUser(): Promise<{ userId: string; username: string }> {
    seq += 1;
    const username = `viewer${seq}`;
    const { userId } = await seedUser(server, {
      username,
      password: PASSWORD,
      tenantId: 't1',
      groupId: 'g1',
      phoneNumber: '+33 1 23 45 67 89',
    });
    return { userId, username };
  }
  async function login(username: string) {
    const client = new TestClient(server.url);
    const response = await client.post('/api/v1/login/', { username, password: PASSWORD });
    expect(response.status).toBe(200);
    return { client, response };
  }
  async function missingCount(): Promise<number> {
    const text = (await new TestClient(server.url).get('/metrics')).text;
    return Number(/^gatehouse_session_checks_total\{outcome="missing"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  }
  async function refusal(promise: Promise<unknown>): Promise<DomainError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }

  it('takes one cookie value as a string, and a live one after an empty one', async () => {
    const { username } = await newUser();
    const { client } = await login(username);
    const { authenticator } = server.gatehouse;
    expect((await authenticator.authenticate(client.session!)).user.username).toBe(username);
    expect((await authenticator.authenticate(['', client.session!])).user.username).toBe(username);
  });

  it('warns of ambiguous cookies only when several sessions are live, not for none', async () => {
    const before = server.logs.length;
    const error = await refusal(
      server.gatehouse.authenticator.authenticate(['A'.repeat(43), 'B'.repeat(43)]),
    );
    expect(error.code).toBe('NOT_AUTHENTICATED');
    expect(server.logs.slice(before).filter((line) => line.event === 'session_cookies_ambiguous')).toEqual(
      [],
    );
  });

  it('lets a logout with one cookie end its session as a logout, even one past its idle time-out', async () => {
    const { userId, username } = await newUser();
    const { client } = await login(username);
    server.clock.advanceSeconds(server.config.session.idleTimeoutS + 1);
    expect((await client.post('/api/v1/logout/', {})).status).toBe(200);
    const events = (await server.gatehouse.store.audit.listForUser(userId, { limit: 100 })).map(
      (record) => record.event,
    );
    expect(events).toContain('logout');
    expect(events).not.toContain('session_expired');
  });

  it('refuses null, undefined, an empty value or none as a missing session, with the refusal’s text', async () => {
    for (const presented of [null, undefined, '', [], ['']]) {
      const before = await missingCount();
      const error = await refusal(server.gatehouse.authenticator.authenticate(presented));
      expect(error.code).toBe('NOT_AUTHENTICATED');
      expect(error.message).toBe('No valid session. Log in first.');
      expect(await missingCount()).toBe(before + 1);
    }
    const response = await new TestClient(server.url).get('/api/v1/session/');
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      code: 'NOT_AUTHENTICATED',
      detail: 'No valid session. Log in first.',
    });
  });

  it('views the session without the phone number, which only the login answer has', async () => {
    const { username } = await newUser();
    const { client, response } = await login(username);
    expect(response.body.profile.phoneNumber).toBe('+33 1 23 45 67 89');
    const session = await client.get('/api/v1/session/');
    expect(session.status).toBe(200);
    expect(session.body.profile).not.toHaveProperty('phoneNumber');
  });

  it('says is_first_login on the session of the first login only, and on none without a first login on record', async () => {
    const { userId, username } = await newUser();
    const first = await login(username);
    server.clock.advanceSeconds(1);
    const second = await login(username);
    expect((await first.client.get('/api/v1/session/')).body.profile.is_first_login).toBe(true);
    expect((await second.client.get('/api/v1/session/')).body.profile.is_first_login).toBe(false);
    // The users' table restored from before the first login, the sessions kept (on their own store).
    await sql.query('UPDATE users SET first_login_at = NULL WHERE user_id = $1', [userId]);
    const viewed = await first.client.get('/api/v1/session/');
    expect(viewed.status).toBe(200);
    expect(viewed.body.profile.is_first_login).toBe(false);
  });
});
