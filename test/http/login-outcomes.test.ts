/**
 * What a password login leaves behind besides its answer, each asserted on its own: the refusal's
 * text, the events it logs (method, reason, user), a stored hash left alone when it needs no
 * upgrade, a password changed while the login was being verified (refused, no session), and a
 * device proof found among several device cookies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { HookedHasher } from '../support/hooked-hasher.js';
import { seedUser, startTestServer, TEST_ENV, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the passphrase at all';

describe('a password login, besides its answer', () => {
  let server: TestServer;
  const hasher = new HookedHasher(new Argon2PasswordHasher(loadConfig(TEST_ENV).password.argon2));
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({
      passwordHasher: hasher,
      env: { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_S: '900' },
    });
    for (const username of ['ann', 'bob', 'cid', 'dee', 'eve']) {
      ids[username] = (
        await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' })
      ).userId;
    }
  });
  afterAll(() => server?.close());

  const login = (username: string, password: string, client = new TestClient(server.url)) =>
    client.post('/api/v1/login/', { username, password });
  const eventsSince = (before: number, event: string) =>
    server.logs.slice(before).filter((line) => line.event === event);

  it('refuses with the one text for every cause', async () => {
    for (const [username, password] of [
      ['ann', WRONG],
      ['nobody', PASSWORD],
    ]) {
      const response = await login(username!, password!);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({
        code: 'AUTHENTICATION_FAILED',
        detail: 'The username or password is incorrect.',
      });
    }
  });

  it('logs a failure with its method, reason and user, and a success with its method and user', async () => {
    let before = server.logs.length;
    await login('bob', WRONG);
    expect(eventsSince(before, 'login_failed')).toEqual([
      expect.objectContaining({
        method: 'password',
        reason: 'bad_password',
        userId: ids.bob,
        blocked: false,
      }),
    ]);
    before = server.logs.length;
    await login('nobody', WRONG);
    expect(eventsSince(before, 'login_failed')).toEqual([
      expect.objectContaining({ method: 'password', reason: 'unknown_user', userId: null }),
    ]);
    before = server.logs.length;
    expect((await login('bob', PASSWORD)).status).toBe(200);
    expect(eventsSince(before, 'login_succeeded')).toEqual([
      expect.objectContaining({ method: 'password', userId: ids.bob }),
    ]);
  });

  it('leaves a stored hash that needs no upgrade as it is', async () => {
    const stored = (await server.gatehouse.store.users.findByUsername('cid'))!.passwordHash;
    expect((await login('cid', PASSWORD)).status).toBe(200);
    expect((await server.gatehouse.store.users.findByUsername('cid'))!.passwordHash).toBe(stored);
  });

  it('refuses a login whose password was changed while it was being verified, and keeps no session', async () => {
    const newHash = await hasher.hash('the new passphrase of dee');
    hasher.afterVerified = async () => {
      await server.gatehouse.store.users.setPassword(ids.dee!, newHash, {
        mustChange: false,
        // A later change than the one the login read (a change at the same instant would count as it).
        now: new Date(server.clock.now().getTime() + 1000),
      });
    };
    const client = new TestClient(server.url);
    const response = await login('dee', PASSWORD, client);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('AUTHENTICATION_FAILED');
    expect(client.session).toBeUndefined();
    expect(await server.gatehouse.store.sessions.listForUser(ids.dee!)).toEqual([]);
  });

  it('finds its own device proof among several device cookies, in any place', async () => {
    // Each browser logged in once: it holds a device proof for that user.
    const own = new TestClient(server.url);
    expect((await login('eve', PASSWORD, own)).status).toBe(200);
    const other = new TestClient(server.url);
    expect((await login('ann', PASSWORD, other)).status).toBe(200);
    const [deviceCookie] = [...own.cookies.keys()].filter((name) => name !== 'sessionid');
    expect(deviceCookie).toBeDefined();
    // Guesses from elsewhere block the account.
    for (let i = 0; i < 3; i++) expect((await login('eve', WRONG)).status).toBe(401);
    expect((await login('eve', PASSWORD)).status).toBe(429);
    // Another user's proof first, then eve's own: eve's browser still gets in.
    const cookie = `${deviceCookie}=${other.cookies.get(deviceCookie!)}; ${deviceCookie}=${own.cookies.get(deviceCookie!)}`;
    const response = await new TestClient(server.url).request('POST', '/api/v1/login/', {
      json: { username: 'eve', password: PASSWORD },
      headers: { cookie },
    });
    expect(response.status).toBe(200);
  });
});
