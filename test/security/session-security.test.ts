/**
 * Session security (ASVS 5.0 chapter 7): the cookie value is never stored or logged; ids are 256
 * bits from the CSPRNG; an id chosen by the client is never adopted; a revoked, timed-out or
 * disabled-user session is refused on every authenticated route of the served OpenAPI document
 * (and touches nothing there); disabling a user or setting a password ends their sessions.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import { AdminUsers } from '../../src/application/admin/admin-users.js';
import { TOKENS } from '../../src/boot/tokens.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import { seedUser, startTestServer, type TestServer } from '../support/test-server.js';
import {
  concretePath,
  dumpDatabaseText,
  problemViolation,
  type RawResponse,
  type ServedOperation,
  send,
  servedOperations,
} from './support.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a completely new passphrase';
const IDLE_S = 300;
const ABSOLUTE_S = 900;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function cookieValue(response: RawResponse, name = 'sessionid'): string {
  const line = response.setCookies.find((candidate) => candidate.startsWith(`${name}=`));
  expect(line, 'a session cookie').toBeDefined();
  return line!.slice(name.length + 1).split(';', 1)[0]!;
}

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`session security [${store}]`, () => {
    let server: TestServer;
    let operations: ServedOperation[];
    let admin: AdminUsers;
    let seq = 0;

    beforeAll(async () => {
      server = await startTestServer({
        store,
        env: {
          SESSION_IDLE_TIMEOUT_S: String(IDLE_S),
          SESSION_ABSOLUTE_TIMEOUT_S: String(ABSOLUTE_S),
          LOGIN_MAX_FAILURES: '1000',
          // One test issues a thousand sessions to one user to look at their ids.
          SESSIONS_PER_USER_MAX: '2000',
        },
      });
      operations = await servedOperations(server);
      const { container } = server.gatehouse;
      admin = new AdminUsers(
        server.gatehouse.store,
        container.get(TOKENS.PasswordHasher),
        container.get(TOKENS.PasswordPolicy),
        container.get(TOKENS.Clock),
        container.get(TOKENS.Random),
        container.get(TOKENS.SessionEnding),
      );
    }, 60_000);
    afterAll(() => server?.close());

    async function newUser(prefix: string): Promise<string> {
      seq += 1;
      const username = `${prefix}-${seq}`;
      await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      return username;
    }

    async function login(username: string, headers: Record<string, string> = {}): Promise<RawResponse> {
      return send(server.url, '/api/v1/login/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ username, password: PASSWORD }),
      });
    }

    async function loggedIn(username: string): Promise<string> {
      const response = await login(username);
      expect(response.status).toBe(200);
      return cookieValue(response);
    }

    const session = (token: string) =>
      send(server.url, '/api/v1/session/', { headers: { cookie: `sessionid=${token}` } });

    async function handleOf(token: string): Promise<string> {
      const found = await server.gatehouse.store.sessions.findByTokenHash(sha256(token));
      expect(found).not.toBeNull();
      return found!.handle;
    }

    /** The sessions the store holds for this user (live or not). */
    async function sessionRows(username: string): Promise<number> {
      const user = await server.gatehouse.store.users.findByUsername(username);
      if (!user) return 0;
      return (await server.gatehouse.store.sessions.listForUser(user.userId)).length;
    }

    /**
     * Every operation that requires a session, called with `token`: each must answer 401
     * NOT_AUTHENTICATED problem+json and set no session cookie. The calls are ones that would
     * change something if accepted (a password change, ending the witness session by handle,
     * ending the other sessions), so a guard that let one through would show.
     */
    async function expectRefusedEverywhere(token: string, witnessHandle: string): Promise<string[]> {
      const guarded = operations.filter((operation) => operation.session === 'required');
      expect(guarded.map((operation) => operation.operationId)).toEqual(
        expect.arrayContaining(['getSession', 'changePassword']),
      );
      const tried: string[] = [];
      for (const operation of guarded) {
        const body =
          operation.requestType === 'application/json'
            ? JSON.stringify({ old_password: PASSWORD, new_password: NEW_PASSWORD })
            : undefined;
        const response = await send(
          server.url,
          concretePath(operation.path, () => witnessHandle),
          {
            method: operation.method,
            headers: {
              cookie: `sessionid=${token}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            ...(body ? { body } : {}),
          },
        );
        expect(
          { operation: operation.operationId, status: response.status, code: response.body?.code },
          response.text,
        ).toEqual({ operation: operation.operationId, status: 401, code: 'NOT_AUTHENTICATED' });
        expect(problemViolation(response, operation.method)).toBeNull();
        expect(response.setCookies.filter((line) => /^sessionid=[^;]/.test(line))).toEqual([]);
        tried.push(`${operation.method} ${operation.path}`);
      }
      return tried;
    }

    it('keeps no session cookie value in any column of any table, nor in the logs', async () => {
      const ann = await newUser('ann');
      const bob = await newUser('bob');
      const tokens = [await loggedIn(ann), await loggedIn(ann), await loggedIn(bob)];
      // A rotated id (password change) and a made-up id sent with a login.
      const changed = await send(server.url, '/api/v1/password/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `sessionid=${tokens[2]}` },
        body: JSON.stringify({ old_password: PASSWORD, new_password: NEW_PASSWORD }),
      });
      expect(changed.status).toBe(200);
      tokens.push(cookieValue(changed));
      const madeUp = 'Q'.repeat(43);
      tokens.push(cookieValue(await login(ann, { cookie: `sessionid=${madeUp}` })), madeUp);
      for (const token of tokens) expect(token).toMatch(TOKEN);

      const database = await dumpDatabaseText(server);
      expect(database).toContain('sessions.token_hash=');
      const logs = server.rawLogs.join('\n');
      expect(logs.length).toBeGreaterThan(0);
      for (const token of tokens) {
        const raw = Buffer.from(token, 'base64url');
        for (const form of [token, raw.toString('hex'), raw.toString('base64'), encodeURIComponent(token)]) {
          expect(database.includes(form), `database holds ${form}`).toBe(false);
          expect(logs.includes(form), `logs hold ${form}`).toBe(false);
        }
      }
      // What is stored is the SHA-256 of each live id.
      for (const token of tokens.slice(0, 2))
        expect(database).toContain(`sessions.token_hash=${sha256(token)}`);
    });

    it('issues ids of 256 bits from the CSPRNG: 1,000 distinct 43-char base64url ids, sane byte statistics', async () => {
      const { container } = server.gatehouse;
      const sqlStore = server.store;
      const ending = container.get(TOKENS.SessionEnding);
      // The service's Random is the OS CSPRNG (crypto.randomBytes).
      expect(container.get(TOKENS.Random)).toBe(nodeRandom);
      const issuer = container.get(TOKENS.SessionIssuer);
      const username = await newUser('many');
      const user = (await sqlStore.users.findByUsername(username))!;
      const client = { clientAddress: '127.0.0.1', userAgent: 'test' };
      const tokens: string[] = [];
      // The same code path a login takes after the password check (no argon2 per id).
      for (let i = 0; i < 1000; i++) {
        const result = await ending.unit((_, end) =>
          issuer.issue(end, { user, method: 'password', presentedTokens: [], client }),
        );
        tokens.push(result.token);
      }
      expect(new Set(tokens).size).toBe(1000);
      for (const token of tokens) expect(token).toMatch(TOKEN);
      const bytes = Buffer.concat(tokens.map((token) => Buffer.from(token, 'base64url')));
      expect(bytes.length).toBe(32 * 1000);

      // Byte frequencies: chi-square over 256 bins, 255 degrees of freedom (mean 255, sd 22.6).
      const counts = new Array<number>(256).fill(0);
      for (const byte of bytes) counts[byte]! += 1;
      const expected = bytes.length / 256;
      const chiSquare = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
      expect(chiSquare).toBeGreaterThan(150);
      expect(chiSquare).toBeLessThan(400);
      // Bit balance overall (sd 0.001) and per byte position (sd 0.0056).
      const ones = (value: number) => value.toString(2).replaceAll('0', '').length;
      let total = 0;
      for (const byte of bytes) total += ones(byte);
      expect(Math.abs(total / (bytes.length * 8) - 0.5)).toBeLessThan(0.006);
      for (let position = 0; position < 32; position++) {
        let bits = 0;
        for (let i = 0; i < 1000; i++) bits += ones(bytes[i * 32 + position]!);
        expect(Math.abs(bits / 8000 - 0.5), `position ${position}`).toBeLessThan(0.035);
      }
      // Each id is live in the store under its hash, and works as a cookie.
      const found = await Promise.all(
        tokens.map((token) => sqlStore.sessions.findByTokenHash(sha256(token))),
      );
      expect(found.filter((session) => session !== null)).toHaveLength(1000);
      expect((await session(tokens[999]!)).status).toBe(200);
      await sqlStore.sessions.deleteAllForUser(user.userId);
    }, 60_000);

    it('never adopts a session id chosen by the client (fixation)', async () => {
      const username = await newUser('fix');
      const chosen = 'AttackerChosenSessionId0123456789abcdefghij';
      expect(chosen).toMatch(TOKEN);
      const response = await login(username, { cookie: `sessionid=${chosen}` });
      expect(response.status).toBe(200);
      const issued = cookieValue(response);
      expect(issued).not.toBe(chosen);
      expect((await session(issued)).status).toBe(200);
      const refused = await session(chosen);
      expect({ status: refused.status, code: refused.body.code }).toEqual({
        status: 401,
        code: 'NOT_AUTHENTICATED',
      });
      expect(await server.gatehouse.store.sessions.findByTokenHash(sha256(chosen))).toBeNull();
      // The chosen id is not adopted by a password change either: the new id is fresh.
      const changed = await send(server.url, '/api/v1/password/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `sessionid=${issued}` },
        body: JSON.stringify({ old_password: PASSWORD, new_password: NEW_PASSWORD }),
      });
      expect(changed.status).toBe(200);
      expect(cookieValue(changed)).not.toBe(issued);
      expect(cookieValue(changed)).not.toBe(chosen);
      expect((await session(issued)).status).toBe(401);
    });

    it('refuses a logged-out session on every authenticated route', async () => {
      const username = await newUser('out');
      const token = await loggedIn(username);
      const witness = await loggedIn(username);
      const logout = await send(server.url, '/api/v1/logout/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `sessionid=${token}` },
        body: '{}',
      });
      expect(logout.status).toBe(200);
      const tried = await expectRefusedEverywhere(token, await handleOf(witness));
      expect(tried.length).toBeGreaterThanOrEqual(2);
      expect((await session(witness)).status).toBe(200);
    });

    it('refuses a session ended by its owner from another session, or by an administrator, on every route', async () => {
      const username = await newUser('ended');
      const victim = await loggedIn(username);
      const other = await loggedIn(username);
      const witness = await loggedIn(username);
      if (operations.some((operation) => operation.operationId === 'endSession')) {
        // DELETE /api/v1/sessions/{handle}/ from another session of the same user (ASVS 7.5.2).
        const revoke = await send(
          server.url,
          `/api/v1/sessions/${encodeURIComponent(await handleOf(victim))}/`,
          {
            method: 'DELETE',
            headers: { cookie: `sessionid=${other}` },
          },
        );
        expect(revoke.status).toBe(200);
      } else {
        await admin.revokeSessions(username, await handleOf(victim));
      }
      await expectRefusedEverywhere(victim, await handleOf(witness));
      // The administrator's `gatehouse sessions revoke USER HANDLE`.
      await admin.revokeSessions(username, await handleOf(other));
      await expectRefusedEverywhere(other, await handleOf(witness));
      expect((await session(witness)).status).toBe(200);
    });

    it('refuses an idle-expired session on every route, and a session past its absolute time-out however active', async () => {
      const username = await newUser('idle');
      const idle = await loggedIn(username);
      server.clock.advanceSeconds(IDLE_S - 30);
      const active = await loggedIn(username);
      server.clock.advanceSeconds(60);
      // `idle` passed its idle time-out; `active` (and a fresh witness) did not.
      const witness = await loggedIn(username);
      await expectRefusedEverywhere(idle, await handleOf(witness));

      // Keep `active` busy well within the idle time-out until its absolute time-out passes.
      let sinceActive = 60;
      while (sinceActive + IDLE_S / 2 < ABSOLUTE_S) {
        server.clock.advanceSeconds(IDLE_S / 2);
        sinceActive += IDLE_S / 2;
        expect((await session(active)).status).toBe(200);
      }
      const fresh = await loggedIn(username);
      server.clock.advanceSeconds(ABSOLUTE_S - sinceActive + 1);
      expect((await session(fresh)).status).toBe(200);
      await expectRefusedEverywhere(active, await handleOf(fresh));
    });

    it('refuses every session of a user disabled in the store, on every route', async () => {
      const username = await newUser('dis');
      const token = await loggedIn(username);
      const witness = await loggedIn(username);
      const handle = await handleOf(witness);
      const user = (await server.gatehouse.store.users.findByUsername(username))!;
      // The bare flag, without ending the sessions: the session check itself refuses them.
      await server.gatehouse.store.users.setDisabled(user.userId, true);
      await expectRefusedEverywhere(token, handle);
      await expectRefusedEverywhere(witness, handle);
    });

    it('ends every session at once when an administrator disables the user (gatehouse user disable)', async () => {
      const username = await newUser('admin-dis');
      const tokens = [await loggedIn(username), await loggedIn(username), await loggedIn(username)];
      const handle = await handleOf(tokens[2]!);
      const { sessionsEnded } = await admin.disable(username);
      expect(sessionsEnded).toBe(3);
      expect(await sessionRows(username)).toBe(0);
      for (const token of tokens) await expectRefusedEverywhere(token, handle);
      await admin.enable(username);
      // Enabling again does not bring an ended session back.
      expect((await session(tokens[0]!)).status).toBe(401);
    });

    it("ends the user's other sessions when the password changes, and all of them when an administrator sets it", async () => {
      const username = await newUser('pw');
      const others = [await loggedIn(username), await loggedIn(username)];
      const current = await loggedIn(username);
      const changed = await send(server.url, '/api/v1/password/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `sessionid=${current}` },
        body: JSON.stringify({ old_password: PASSWORD, new_password: NEW_PASSWORD }),
      });
      expect(changed.status).toBe(200);
      const rotated = cookieValue(changed);
      expect(await sessionRows(username)).toBe(1);
      for (const token of [...others, current]) await expectRefusedEverywhere(token, await handleOf(rotated));
      expect((await session(rotated)).status).toBe(200);

      // `gatehouse user set-password`: every session ends, the current one included.
      await admin.setPassword(username, 'an administrator chose this');
      expect(await sessionRows(username)).toBe(0);
      expect((await session(rotated)).status).toBe(401);
    });
  });
}
