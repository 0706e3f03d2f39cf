/**
 * A per-customer interpreter package named by SSO_TOKEN_INTERPRETER, loaded by specifier at
 * start-up, interpreting a non-standard token layout issued by a real oidc-provider; and the
 * start-up refusals of a bad specifier.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/adapters/logging/logger.js';
import { InterpreterLoadError } from '../../src/adapters/openid/interpreter-loader.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouse } from '../../src/boot/gatehouse.js';
import { ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { POLICY_TARGETS } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const ACME = 'https://acme.example/claims';
const SPECIFIER = './test/fixtures/acme-interpreter';

/** ACME's identity provider: its own claim layout, none of the standard claims Gatehouse reads. */
const ACME_ACCOUNTS = {
  'acme|g1|ann': { [ACME]: { login: 'ann' }, acme_org: { unit_id: 'g1', name: 'Sales' } },
  // Provisioned before the namespaced claims: only the sub pattern acme|<unit>|<login>.
  'acme|g1|bob': {},
  'u-multi': { [ACME]: { login: 'mia' }, acme_org: { unit_id: ['g1', 'g2'] } },
  // Standard claims only: the ACME interpreter does not read them.
  'u-standard': { preferred_username: 'ann', groups: ['g1'] },
};

for (const store of POLICY_TARGETS) {
  describe(`SSO login with a customer interpreter package (SSO_TOKEN_INTERPRETER) [${store}]`, () => {
    let tp: TestProvider;
    let server: TestServer;

    beforeAll(async () => {
      tp = await startTestProvider({ accounts: ACME_ACCOUNTS });
      server = await startTestServer({ store, env: ssoEnv(tp, { SSO_TOKEN_INTERPRETER: SPECIFIER }) });
      await seedUser(server, { username: 'ann', userLevel: 8, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, { username: 'bob', userLevel: 8, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, { username: 'mia', userLevel: 8, tenantId: 't1', groupId: 'g1' });
    });

    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    it('names the loaded interpreter at start-up', () => {
      expect(server.logs).toContainEqual(
        expect.objectContaining({ msg: 'single sign-on configured', interpreter: 'acme' }),
      );
    });

    it('logs in from the namespaced login claim and acme_org.unit_id', async () => {
      const client = new TestClient(server.url);
      const response = await ssoLogin(client, tp, { accountId: 'acme|g1|ann' });
      expect(response.status).toBe(200);
      expect(response.body.ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1' });
      expect(response.body.profile).toMatchObject({ username: 'ann', user_level: 8 });
      expect((await client.get('/api/v1/session/')).body.profile.username).toBe('ann');
    });

    it('logs in from the sub pattern acme|<unit>|<login> alone', async () => {
      const response = await ssoLogin(new TestClient(server.url), tp, { accountId: 'acme|g1|bob' });
      expect(response.status).toBe(200);
      expect(response.body.profile.username).toBe('bob');
    });

    it("still applies the service's rules: two units is SSO_MULTI_GROUPS", async () => {
      const response = await ssoLogin(new TestClient(server.url), tp, { accountId: 'u-multi' });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SSO_MULTI_GROUPS');
    });

    it('ignores the standard claims: no ACME login is SSO_INVALID_USERNAME', async () => {
      const response = await ssoLogin(new TestClient(server.url), tp, { accountId: 'u-standard' });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SSO_INVALID_USERNAME');
    });
  });
}

describe('SSO_TOKEN_INTERPRETER at start-up', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-interpreter-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const silent = createLogger(
    'silent',
    new Writable({
      write(_chunk, _encoding, callback) {
        callback();
      },
    }),
  );

  /** createGatehouse with SSO pointed at an address nothing listens on (never contacted). */
  async function startWith(specifier: string): Promise<unknown> {
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      OIDC_ISSUER: 'http://127.0.0.1:9',
      OIDC_CLIENT_ID: 'gatehouse',
      OIDC_CLIENT_SECRET: 'gatehouse-secret-0123456789abcdef',
      OIDC_REDIRECT_URIS: 'http://127.0.0.1:5555/cb',
      OIDC_ALLOW_INSECURE_HTTP: 'true',
      SSO_TOKEN_INTERPRETER: specifier,
    });
    return createGatehouse({ config, logger: silent }).then(
      async (gatehouse) => {
        await gatehouse.close();
        throw new Error(`createGatehouse accepted ${specifier}`);
      },
      (error: unknown) => error,
    );
  }

  it.each([
    ['a path that does not exist', './test/fixtures/no-such-interpreter'],
    ['a package that is not installed', 'acme-interpreter-not-installed'],
  ])('a bad specifier (%s) stops start-up naming it', async (_label, specifier) => {
    const error = await startWith(specifier);
    expect(error).toBeInstanceOf(InterpreterLoadError);
    expect((error as Error).message).toContain(`"${specifier}"`);
    expect((error as Error).message).toContain('cannot be loaded');
  });

  it('refuses a module without a factory', async () => {
    const specifier = './test/fixtures/broken-interpreters/no-factory.js';
    const error = await startWith(specifier);
    expect(error).toBeInstanceOf(InterpreterLoadError);
    expect((error as Error).message).toContain(specifier);
    expect((error as Error).message).toContain('exports no factory function');
  });

  it('refuses a factory whose interpreter has no interpret()', async () => {
    const specifier = './test/fixtures/broken-interpreters/bad-shape.js';
    const error = await startWith(specifier);
    expect(error).toBeInstanceOf(InterpreterLoadError);
    expect((error as Error).message).toContain(specifier);
    expect((error as Error).message).toContain('{ name: string, interpret(tokens) }');
  });
});
