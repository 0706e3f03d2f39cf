/**
 * Offboarding as an operator does it: a real service logs users in through a customer's real
 * OpenID provider, and the real `gatehouse provider ...` command (a child process, on the same
 * database and session store) disables, enables, removes, re-adds and narrows that provider. The
 * sessions are never presented in between: what ends them is the command, not a later check, and
 * nothing the command ended comes back. On the SQL session store and on Redis.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import type { StoredSession } from '../../src/domain/session/session.js';
import { hashSessionToken, newSessionToken } from '../../src/domain/session/session-token.js';
import { contractSession, contractSsoData } from '../../src/testing/stores.js';
import { CLI_TEST_TIMEOUT_MS, providerAddArgs, runGatehouse } from '../cli/cli-support.js';
import { nonce } from '../fixtures/sso/harness.js';
import {
  LEAN_MATRIX,
  openTestPostgres,
  pgEnabled,
  type TestPgSqlClient,
  testRedisUrl,
} from '../support/databases.js';
import { DEFAULT_REDIRECT_URI, startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const KEY = randomBytes(32).toString('base64');
const PASSWORD = 'correct horse battery staple';
/** One redirect URI per customer provider of this file (each test offboards its own). */
const uriOf = (provider: string) => `${DEFAULT_REDIRECT_URI}?customer=${provider}`;
const PROVIDERS = ['c-disable', 'c-remove', 'c-narrow', 'c-reset'] as const;

const sessionCookie = (response: { setCookies: string[] }) =>
  response.setCookies.find((line) => /^sessionid=[^;]/.test(line))?.split(';')[0] ?? '';

// The lean run (Node 24) once, on SQL: the Redis repeat tests the store, not the runtime.
for (const sessions of LEAN_MATRIX ? (['sql'] as const) : (['sql', 'redis'] as const)) {
  describe.skipIf(!pgEnabled)(
    `provider offboarding through the command, sessions never presented [${sessions}]`,
    { timeout: CLI_TEST_TIMEOUT_MS },
    () => {
      let database: TestPgSqlClient;
      let idp: TestProvider;
      let server: TestServer;
      let env: Record<string, string>;

      const gatehouse = (args: string[], input?: string) =>
        runGatehouse(args, { env, ...(input === undefined ? {} : { input }) });

      /** `provider add ID` for `tenants`, through the idp's client, as an operator registers it. */
      async function addProvider(id: string, tenants: string[], levels = '8,12') {
        const { clientId, clientSecret } = idp.clients.gatehouse;
        const added = await gatehouse(
          providerAddArgs(id, {
            issuer: idp.issuer,
            clientId,
            redirectUris: [uriOf(id)],
            tenants,
            more: ['--levels', levels, '--client-secret-stdin'],
          }),
          clientSecret!,
        );
        expect(added.stderr).toBe('');
        expect(added.code).toBe(0);
      }

      /**
       * The command stamps registry changes with the real clock; the service's test clock stands
       * still unless moved: brought up to now, its new sessions are made after the change.
       */
      const catchUp = () => server.clock.advance(Math.max(0, Date.now() - server.clock.now().getTime()));

      /** An SSO login through `provider` as the idp's account `accountId`: its cookie. */
      async function login(provider: string, accountId: string): Promise<string> {
        catchUp();
        const sentNonce = nonce();
        const { code } = await idp.issueCode({ accountId, nonce: sentNonce, redirectUri: uriOf(provider) });
        const response = await new TestClient(server.url).post('/api/v1/openid/login/', {
          nonce: sentNonce,
          authorization_code: code,
          redirect_uri: uriOf(provider),
        });
        expect(response.status).toBe(200);
        return sessionCookie(response);
      }

      /** Once the service applied the registry (it polls every 100 ms here), a login succeeds. */
      const loginOnceServed = async (provider: string, accountId: string) => {
        let cookie = '';
        await vi.waitFor(
          async () => {
            cookie = await login(provider, accountId);
          },
          { timeout: 10_000, interval: 100 },
        );
        return cookie;
      };

      const status = async (cookie: string) =>
        (await new TestClient(server.url).get('/api/v1/session/', { cookie })).status;

      const revokedFor = async (username: string, reason: string) =>
        (await server.gatehouse.store.audit.listSince(new Date(0), 10_000)).filter(
          (record) =>
            record.event === 'session_revoked' && record.reason === reason && record.username === username,
        ).length;

      /** A session through `provider` written straight to the store: its cookie and record. */
      async function plantSession(userId: string, provider: string, createdAt: Date) {
        const token = newSessionToken(nodeRandom);
        const session: StoredSession = contractSession(userId, {
          tokenHash: hashSessionToken(token),
          method: 'sso',
          createdAt,
          lastSeenAt: server.clock.now(),
          expiresAt: new Date(server.clock.now().getTime() + 3_600_000),
          sso: contractSsoData({ provider, issuer: idp.issuer }),
        });
        await server.gatehouse.store.sessions.create(session, session.expiresAt);
        return { cookie: `sessionid=${token}`, session };
      }

      beforeAll(async () => {
        [database, idp] = await Promise.all([
          openTestPostgres(),
          startTestProvider({
            redirectUris: PROVIDERS.map(uriOf),
            accounts: Object.fromEntries(
              ['ann', 'bob', 'carl', 'dora', 'erin', 'fay'].map((name) => [
                `${name}-1`,
                { preferred_username: name, groups: [`g-${name}`] },
              ]),
            ),
          }),
        ]);
        env = {
          DATABASE_URL: database.connectionString,
          TOKEN_ENCRYPTION_KEY: KEY,
          OIDC_ALLOW_INSECURE_HTTP: 'true',
          SSO_REGISTRY_POLL_MS: '100',
          ...(sessions === 'redis'
            ? {
                SESSION_STORE: 'redis',
                REDIS_URL: testRedisUrl(),
                REDIS_KEY_PREFIX: `offboard${process.pid}-${randomBytes(3).toString('hex')}:`,
              }
            : {}),
        };
        server = await startTestServer({ sqlClient: database, env });
        const users: Array<[string, string, 8 | 12]> = [
          ['ann', 't-ann', 8],
          ['bob', 't-bob', 8],
          ['carl', 't-narrow-a', 8],
          ['dora', 't-narrow-b', 8],
          ['erin', 't-narrow-b', 12],
          ['fay', 't-fay', 8],
        ];
        for (const [username, tenantId, userLevel] of users) {
          await seedUser(server, { username, userLevel, tenantId, groupId: `g-${username}` });
        }
        await seedUser(server, { username: 'pat', password: PASSWORD, tenantId: 't-ann', groupId: 'g-pat' });
      });
      afterAll(async () => {
        await server?.close();
        await idp?.close();
      });

      it('disable ends a session never presented; enable does not bring it back; new logins work again', async () => {
        await addProvider('c-disable', ['t-ann']);
        const ann = await loginOnceServed('c-disable', 'ann-1');
        const pat = new TestClient(server.url);
        expect((await pat.post('/api/v1/login/', { username: 'pat', password: PASSWORD })).status).toBe(200);

        const disabled = await gatehouse(['provider', 'disable', 'c-disable']);
        const enabled = await gatehouse(['provider', 'enable', 'c-disable']);
        const again = await loginOnceServed('c-disable', 'ann-1');
        expect(await status(ann)).toBe(401);
        expect(await status(again)).toBe(200);
        expect(disabled.code).toBe(0);
        expect(disabled.stdout).toMatch(/^disabled provider "c-disable": .*; ended 1 session\n$/);
        expect(await revokedFor('ann', 'provider_disabled')).toBe(1);
        expect(enabled.code).toBe(0);
        // A password session of the same tenant is no concern of the provider's.
        expect((await pat.get('/api/v1/session/')).status).toBe(200);
      });

      it('a session made while the provider was disabled (a login in flight) is refused after enable', async () => {
        const annUser = (await server.gatehouse.store.users.findByUsername('ann'))!;
        expect((await gatehouse(['provider', 'disable', 'c-disable'])).code).toBe(0);
        // Written after the disable ended the provider's sessions, as a login in flight would.
        catchUp();
        const inFlight = await plantSession(annUser.userId, 'c-disable', server.clock.now());
        expect((await gatehouse(['provider', 'enable', 'c-disable'])).code).toBe(0);
        await loginOnceServed('c-disable', 'ann-1');
        expect(await status(inFlight.cookie)).toBe(401);
      });

      it('remove ends what the disable left, and the same id added again revives nothing', async () => {
        await addProvider('c-remove', ['t-bob']);
        const bob = await loginOnceServed('c-remove', 'bob-1');
        const bobUser = (await server.gatehouse.store.users.findByUsername('bob'))!;
        const original = (await server.gatehouse.store.sessions.listForUser(bobUser.userId)).find(
          (session) => session.sso?.provider === 'c-remove',
        )!;

        const disabled = await gatehouse(['provider', 'disable', 'c-remove']);
        catchUp();
        const inFlight = await plantSession(bobUser.userId, 'c-remove', server.clock.now());
        const removed = await gatehouse(['provider', 'remove', 'c-remove']);
        expect(removed.code).toBe(0);
        const afterRemove = await server.gatehouse.store.sessions.findByTokenHash(inFlight.session.tokenHash);

        await addProvider('c-remove', ['t-bob']);
        // The binding was forgotten: bob binds again through the new registration.
        const fresh = await loginOnceServed('c-remove', 'bob-1');
        expect(await status(bob)).toBe(401);
        expect(await status(inFlight.cookie)).toBe(401);
        expect(await status(fresh)).toBe(200);
        expect(afterRemove).toBeNull();
        expect(disabled.stdout).toContain('; ended 1 session\n');
        expect(removed.stdout).toBe(
          `removed provider "c-remove"; ended 1 session; its users' provider bindings are forgotten\n`,
        );

        // A store that lost the deletion (the old session written back): still refused, and ended.
        const lost = await plantSession(bobUser.userId, 'c-remove', original.createdAt);
        expect(await status(lost.cookie)).toBe(401);
        expect(await server.gatehouse.store.sessions.findByTokenHash(lost.session.tokenHash)).toBeNull();
      });

      it('narrowing ends the sessions of the users the provider no longer admits, and only theirs', async () => {
        await addProvider('c-narrow', ['t-narrow-a', 't-narrow-b']);
        const carl = await loginOnceServed('c-narrow', 'carl-1');
        const dora = await login('c-narrow', 'dora-1');
        const erin = await login('c-narrow', 'erin-1');

        const byTenant = await gatehouse(['provider', 'update', 'c-narrow', '--tenant', 't-narrow-b']);
        expect(byTenant.code).toBe(0);
        expect([await status(carl), await status(dora), await status(erin)]).toEqual([401, 200, 200]);
        expect(byTenant.stdout).toContain('ended 1 session of users it no longer admits\n');
        expect(await revokedFor('carl', 'provider_narrowed')).toBe(1);
        // A login in flight while the narrowing ran: refused at its check, once the service has
        // the change (it polls every 100 ms here).
        catchUp();
        const carlUser = (await server.gatehouse.store.users.findByUsername('carl'))!;
        const inFlight = await plantSession(carlUser.userId, 'c-narrow', server.clock.now());
        await vi.waitFor(async () => expect(await status(inFlight.cookie)).toBe(401), {
          timeout: 10_000,
          interval: 100,
        });
        expect(await server.gatehouse.store.sessions.findByTokenHash(inFlight.session.tokenHash)).toBeNull();

        const byLevel = await gatehouse(['provider', 'update', 'c-narrow', '--levels', '8']);
        expect([await status(dora), await status(erin)]).toEqual([200, 401]);
        expect(byLevel.stdout).toContain('ended 1 session of users it no longer admits\n');

        // A change that narrows nothing ends nothing, and says nothing of sessions.
        const widened = await gatehouse(['provider', 'update', 'c-narrow', '--require-pkce']);
        expect(widened.stdout).not.toContain('ended');
        expect(await status(dora)).toBe(200);
      });

      it("reset-sso ends the user's sessions made through the provider it was bound to", async () => {
        await addProvider('c-reset', ['t-fay']);
        const fay = await loginOnceServed('c-reset', 'fay-1');
        const reset = await gatehouse(['user', 'reset-sso', 'fay']);
        expect(reset.code).toBe(0);
        expect(await status(fay)).toBe(401);
        expect(reset.stdout).toContain('ended 1 session made through that provider');
        expect(await revokedFor('fay', 'sso_binding_reset')).toBe(1);
      });
    },
  );
}
