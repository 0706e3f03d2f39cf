/**
 * Issue 28 item 7: a session's `auth` (stage, amr, authTime) goes through the session store, and
 * the service fails closed when a store loses it. The token itself marks a pending session
 * (`mfa.` + 43 characters), so a store that drops `auth`, or says a pending session is full,
 * never turns it into a logged-in one; a session stored before second factors (a row with null
 * `auth` columns, a Redis record without the fields) keeps working as a password session made
 * when it was created.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { memorySessionSide } from '../../src/adapters/memory/memory-session-side.js';
import { redisSessionSide } from '../../src/adapters/redis/redis-session-side.js';
import type { SessionAuthenticator } from '../../src/application/session-authenticator.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver, type ServiceGatehouse as Gatehouse } from '../../src/boot/gatehouse.js';
import { TOKENS } from '../../src/boot/tokens.js';
import type { SessionRecord } from '../../src/domain/session/session.js';
import type { SessionAuth } from '../../src/domain/session/session-auth.js';
import type { SessionSide } from '../../src/domain/session/session-side.port.js';
import type { SessionStore } from '../../src/domain/session/session-store.port.js';
import { systemClock } from '../../src/domain/shared/clock.port.js';
import { EMPTY_ATTRIBUTES, type User } from '../../src/domain/user/user.js';
import { openTestPglite, pgEnabled, type ServiceStoreKind, testRedisUrl } from '../support/databases.js';
import { expectProblem } from '../support/expect-problem.js';
import { seedUser, startTestServer, TEST_ENV, TestClient, type TestServer } from '../support/test-server.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const CLIENT = { clientAddress: '127.0.0.1', userAgent: 'auth-loss test' };

/** What a login would ask of the issuer: a session of this kind for this user. */
type Issued = { stage: SessionAuth['stage']; amr: string[] };

/** Issues a session the way a login does (`SessionIssuer` inside `SessionEnding.unit`); its token. */
async function issue(gatehouse: Gatehouse, user: User, auth: Issued): Promise<string> {
  const { container } = gatehouse;
  const issuer = container.get(TOKENS.SessionIssuer);
  const result = await container
    .get(TOKENS.SessionEnding)
    .unit((_, end) =>
      issuer.issue(end, { user, method: 'password', presentedTokens: [], client: CLIENT, auth }),
    );
  return result.token;
}

/** GET /api/v1/session/ with this session's cookie. */
function sessionRead(url: string, token: string) {
  const client = new TestClient(url);
  client.cookies.set('sessionid', token);
  return client.get('/api/v1/session/');
}

/** What the service makes of the session (the facts every guard and route acts on). */
function authOf(
  gatehouse: Gatehouse,
  token: string,
  demands?: Parameters<SessionAuthenticator['authenticate']>[1],
) {
  return gatehouse.container
    .get(TOKENS.SessionAuthenticator)
    .authenticate(token, demands)
    .then((authenticated) => authenticated.auth);
}

/** How a broken store answers in place of the `auth` it was given. */
type Loss = (session: SessionRecord) => SessionRecord;

const drops: Loss = ({ auth: _lost, ...session }) => session;
/** Worse than losing: a store that says every session is full and made with two factors. */
const widens: Loss = (session) => ({
  ...session,
  auth: { stage: 'full', amr: ['pwd', 'otp'], authTime: session.auth?.authTime ?? session.createdAt },
});

/** A real store whose every read passes through `loss` (lookups, lists, pages, deletions). */
function losingAuth(store: SessionStore, loss: Loss): SessionStore {
  const { paging, lookupWithUser, ...others } = store.capabilities;
  // Each loss keeps every other field (a deleted session's provider tokens too).
  const lose = <T extends SessionRecord>(session: T | null): T | null => session && (loss(session) as T);
  return {
    capabilities: {
      ...others,
      ...(paging
        ? { paging: { listPage: async (...args) => (await paging.listPage(...args)).map((s) => lose(s)!) } }
        : {}),
      ...(lookupWithUser
        ? {
            lookupWithUser: {
              findSessionWithUser: async (tokenHash) => {
                const found = await lookupWithUser.findSessionWithUser(tokenHash);
                return found && { ...found, session: lose(found.session)! };
              },
            },
          }
        : {}),
    },
    create: (session, keepUntil) => store.create(session, keepUntil),
    findByTokenHash: async (tokenHash) => lose(await store.findByTokenHash(tokenHash)),
    touch: (tokenHash, now, keepUntil) => store.touch(tokenHash, now, keepUntil),
    listForUser: async (userId) => (await store.listForUser(userId)).map((s) => lose(s)!),
    deleteByTokenHash: async (tokenHash) => lose(await store.deleteByTokenHash(tokenHash)),
    deleteAllForUser: (userId, except) => store.deleteAllForUser(userId, except),
    deleteByHandle: (userId, handle) => store.deleteByHandle(userId, handle),
    deleteBySso: async (origin, by) => (await store.deleteBySso(origin, by)).map((s) => lose(s)!),
    evictBeyond: async (userId, keep) => (await store.evictBeyond(userId, keep)).map((s) => lose(s)!),
  };
}

let redisPrefixes = 0;

/** The real session sides the lossy wrapper goes around. */
const SIDES: Record<string, () => SessionSide> = {
  memory: () => memorySessionSide(systemClock),
  redis: () =>
    redisSessionSide(new Redis(testRedisUrl()), {
      keyPrefix: `auth-loss-${process.pid}-${++redisPrefixes}:`,
    }),
};

for (const [sideName, openSide] of Object.entries(SIDES)) {
  for (const [lossName, loss] of [
    ['drops', drops],
    ['says full', widens],
  ] as const) {
    describe(`a session store that ${lossName} \`auth\` on every read [${sideName}]`, () => {
      let gatehouse: Gatehouse;
      let server: RunningServer;
      let inner: SessionStore;
      let user: User;

      beforeAll(async () => {
        const side = openSide();
        inner = side.sessions;
        const config = loadConfig({ ...TEST_ENV, SESSION_STORE: 'sql' });
        gatehouse = await createGatehouseOver(await openTestPglite(), {
          config,
          sessionStore: { ...side, sessions: losingAuth(side.sessions, loss) },
        });
        server = await listen(gatehouse.app, 0, '127.0.0.1', config.http);
        user = await gatehouse.store.users.create(
          {
            ...EMPTY_ATTRIBUTES,
            userId: `u-loss-${sideName}`,
            username: `loss-${sideName}`,
            userLevel: 0,
            tenantId: null,
            groupId: null,
            backendName: null,
            passwordHash: null,
            mustChangePassword: false,
          },
          systemClock.now(),
        );
      });
      afterAll(async () => {
        await server?.close(0);
        await gatehouse?.close();
      });

      it('still refuses a pending session’s token with 403 MFA_REQUIRED (both pending stages)', async () => {
        for (const stage of ['second_factor', 'enrolment'] as const) {
          const token = await issue(gatehouse, user, { stage, amr: ['pwd'] });
          // The real store kept it; the service sees only what the broken one answers.
          expect((await inner.findByTokenHash(sha256(token)))?.auth?.stage).toBe(stage);
          const seen = await gatehouse.store.sessions.findByTokenHash(sha256(token));
          expect(seen?.auth?.stage).toBe(loss === drops ? undefined : 'full');
          expectProblem(await sessionRead(server.url, token), 403, 'MFA_REQUIRED');
          await expect(authOf(gatehouse, token)).rejects.toMatchObject({ code: 'MFA_REQUIRED' });
        }
      });

      it('keeps a full session working, and never lets what it says satisfy a step-up it cannot prove', async () => {
        const token = await issue(gatehouse, user, { stage: 'full', amr: ['pwd'] });
        expect((await sessionRead(server.url, token)).status).toBe(200);
        const auth = await authOf(gatehouse, token);
        expect(auth.stage).toBe('full');
        if (loss === drops) {
          // Lost facts read as the login method says: a password only, so two factors are not met.
          expect(auth.amr).toEqual(['pwd']);
          await expect(authOf(gatehouse, token, { stepUp: { requireMfa: true } })).rejects.toMatchObject({
            code: 'MFA_REQUIRED',
          });
        }
      });
    });
  }
}

/**
 * Sessions from before the upgrade, as the stores hold them: a SQL row whose `auth` columns are
 * null (migration 0013 adds them empty), a Redis record without the fields. Made here by issuing a
 * session and then removing its facts beneath the port.
 */
async function forgetAuthBeneath(server: TestServer, tokenHash: string): Promise<void> {
  const settings = server.config.sessionStore;
  if (settings.kind === 'sql') {
    const { rowCount } = await server.sql.query(
      'UPDATE sessions SET auth_stage = NULL, auth_methods = NULL, auth_time = NULL WHERE token_hash = $1',
      [tokenHash],
    );
    expect(rowCount).toBe(1);
    return;
  }
  if (settings.kind !== 'redis' || !settings.url) throw new Error('a SQL or single-server Redis store');
  const redis = new Redis(settings.url);
  try {
    const key = `${settings.keyPrefix}s:${tokenHash}`;
    const record = JSON.parse((await redis.hget(key, 'r'))!) as Record<string, unknown>;
    expect(Object.keys(record)).toEqual(expect.arrayContaining(['as', 'am', 'at']));
    const { as: _stage, am: _methods, at: _time, ...before } = record;
    await redis.hset(key, 'r', JSON.stringify(before));
  } finally {
    redis.disconnect();
  }
}

const UPGRADE_STORES: ServiceStoreKind[] = [pgEnabled ? 'postgres' : 'pglite', 'redis'];

for (const store of UPGRADE_STORES) {
  describe(`sessions stored before second factors [${store}]`, () => {
    let server: TestServer;
    let user: User;

    beforeAll(async () => {
      server = await startTestServer({ store });
      user = await seedUser(server, { username: `before-${store}` });
    });
    afterAll(async () => {
      await server?.close();
    });
    afterEach(async () => {
      await server.store.sessions.deleteAllForUser(user.userId);
    });

    it('the store gives the service back the facts a login wrote (amr, stage, time)', async () => {
      const token = await issue(server.gatehouse, user, { stage: 'full', amr: ['pwd', 'otp'] });
      const stored = await server.store.sessions.findByTokenHash(sha256(token));
      const auth = await authOf(server.gatehouse, token, { stepUp: { requireMfa: true } });
      expect(auth).toEqual({ stage: 'full', amr: ['pwd', 'otp'], authTime: stored!.createdAt });
    });

    it('a full session with no stored facts still works, as a password session made when it was created', async () => {
      const token = await issue(server.gatehouse, user, { stage: 'full', amr: ['pwd', 'otp'] });
      await forgetAuthBeneath(server, sha256(token));
      const stored = await server.store.sessions.findByTokenHash(sha256(token));
      expect(stored).not.toBeNull();
      expect(stored).not.toHaveProperty('auth');
      const read = await sessionRead(server.url, token);
      expect(read.status).toBe(200);
      expect(read.body.profile.username).toBe(user.username);
      expect(await authOf(server.gatehouse, token)).toEqual({
        stage: 'full',
        amr: ['pwd'],
        authTime: stored!.createdAt,
      });
    });

    // Registered on SQL only (not skipped elsewhere: CI counts skips as failures).
    if (store !== 'redis')
      it('the table keeps the three columns together (none or all)', async () => {
        const token = await issue(server.gatehouse, user, { stage: 'full', amr: ['pwd'] });
        await expect(
          server.sql.query('UPDATE sessions SET auth_time = NULL WHERE token_hash = $1', [sha256(token)]),
        ).rejects.toThrow(/sessions_auth_whole/);
        await expect(
          server.sql.query("UPDATE sessions SET auth_stage = 'pending' WHERE token_hash = $1", [
            sha256(token),
          ]),
        ).rejects.toThrow(/check constraint/);
      });

    it('a pending session whose stored facts are gone is still refused with 403 MFA_REQUIRED', async () => {
      const token = await issue(server.gatehouse, user, { stage: 'second_factor', amr: ['pwd'] });
      await forgetAuthBeneath(server, sha256(token));
      expect(await server.store.sessions.findByTokenHash(sha256(token))).not.toHaveProperty('auth');
      expectProblem(await sessionRead(server.url, token), 403, 'MFA_REQUIRED');
    });
  });
}
