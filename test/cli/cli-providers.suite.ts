import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StoreKind } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { type CliTarget, describeCliStore, openCliTarget, runGatehouse } from './cli-support.js';

const KEY = randomBytes(32).toString('base64');
const CLIENT_SECRET = 'globex-client-secret-never-printed';
const SETTING_VALUE = 'interpreter-api-token-never-printed';

/**
 * `gatehouse provider ...` as an operator runs it (child processes): a customer's provider
 * registered, shown, tested against a real OpenID provider, changed, offboarded, and audited;
 * every refusal names the option at fault, and no secret is ever printed.
 */
export function providersSuite(kind: StoreKind): void {
  describeCliStore(kind, 'gatehouse provider', () => {
    let target: CliTarget;
    let idp: TestProvider;
    let env: Record<string, string>;
    const gatehouse = (args: string[], input?: string, extraEnv: Record<string, string> = {}) =>
      runGatehouse(args, { env: { ...env, ...extraEnv }, ...(input === undefined ? {} : { input }) });
    /** The arguments of adding provider "initech" for the tenant t-other at `redirectUri`, then `more`. */
    const addInitech = (redirectUri: string, ...more: string[]) => [
      'provider',
      'add',
      'initech',
      '--issuer',
      idp.issuer,
      '--client-id',
      'x',
      '--redirect-uri',
      redirectUri,
      '--tenant',
      't-other',
      ...more,
    ];

    beforeAll(async () => {
      [target, idp] = await Promise.all([openCliTarget(kind), startTestProvider()]);
      env = {
        ...target.env,
        TOKEN_ENCRYPTION_KEY: KEY,
        SSO_INTERPRETERS: 'globex=./test/fixtures/acme-interpreter/index.js',
        OIDC_ALLOW_INSECURE_HTTP: 'true',
      };
      await target.withStore(async (store) => {
        await store.directory.addTenant('t-globex', 'Globex');
        await store.directory.addTenant('t-other', 'Other');
      });
    });
    afterAll(async () => {
      await Promise.all([target?.close(), idp?.close()]);
    });

    it('registers a provider with its secrets from standard input and never shows them', async () => {
      const added = await gatehouse(
        [
          'provider',
          'add',
          'globex',
          '--issuer',
          idp.issuer,
          '--client-id',
          'gatehouse',
          '--redirect-uri',
          'https://portal.example/globex/cb',
          '--redirect-uri',
          'https://portal.example/globex/cb?v=2',
          '--tenant',
          't-globex',
          '--interpreter',
          'globex',
          '--setting',
          `API_TOKEN=${SETTING_VALUE}`,
          '--levels',
          '8,12',
          '--require-pkce',
          '--client-secret-stdin',
        ],
        `${CLIENT_SECRET}\n`,
      );
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(added.stdout).toContain('added provider "globex"');
      expect(added.stdout).toContain('client id "gatehouse" (client_secret_basic, secret set)');
      expect(added.stdout).toContain('settings "API_TOKEN"');
      expect(added.stdout).toContain('levels 8, 12; PKCE required');

      const listed = await gatehouse(['provider', 'list']);
      expect(listed.stdout).toContain(`"globex"  enabled  ${idp.issuer}  tenants "t-globex"`);
      const shown = await gatehouse(['provider', 'show', 'globex']);
      expect(shown.stdout).toContain(
        'redirect URIs https://portal.example/globex/cb https://portal.example/globex/cb?v=2',
      );
      expect(shown.stdout).toContain('ID token algorithm RS256');
      for (const output of [added, listed, shown]) {
        expect(output.stdout + output.stderr).not.toContain(CLIENT_SECRET);
        expect(output.stdout + output.stderr).not.toContain(SETTING_VALUE);
      }
    });

    it('refuses a duplicate redirect URI, an interpreter the deployment does not allow, and a missing key, naming each', async () => {
      const duplicate = await gatehouse(
        addInitech('https://portal.example/globex/cb', '--client-secret-stdin'),
        's\n',
      );
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain(
        'error CONFLICT: redirect-uri: https://portal.example/globex/cb belongs to provider "globex"',
      );

      const interpreter = await gatehouse(
        addInitech('https://portal.example/initech/cb', '--interpreter', 'evil', '--client-secret-stdin'),
        's\n',
      );
      expect(interpreter.code).toBe(1);
      expect(interpreter.stderr).toContain(
        'interpreter: "evil" is not allowed: name one of SSO_INTERPRETERS',
      );

      const noKey = await gatehouse(
        addInitech('https://portal.example/initech/cb', '--client-secret-stdin'),
        's\n',
        { TOKEN_ENCRYPTION_KEY: '' },
      );
      expect(noKey.code).toBe(1);
      expect(noKey.stderr).toContain('TOKEN_ENCRYPTION_KEY');

      const noSecret = await gatehouse(addInitech('https://portal.example/initech/cb'));
      expect(noSecret.code).toBe(2);
      expect(noSecret.stderr).toContain('--client-secret-stdin or --private-key-jwk-stdin is required');
      expect((await gatehouse(['provider', 'list'])).stdout).toContain('1 provider\n');
    });

    it('tests discovery, the issuer and the keys against the real provider', async () => {
      const passed = await gatehouse(['provider', 'test', 'globex']);
      expect(passed.code).toBe(0);
      expect(passed.stdout).toContain(`ok    issuer ${idp.issuer}`);
      expect(passed.stdout).toMatch(/ok {4}keys .*can verify RS256/);

      const es256 = await gatehouse(['provider', 'update', 'globex', '--id-token-alg', 'ES256']);
      expect(es256.code).toBe(0);
      const failed = await gatehouse(['provider', 'test', 'globex']);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/fail {2}keys .*none of \d+ can verify ES256/);
      expect(failed.stderr).toContain('error PROVIDER_TEST_FAILED');
      await gatehouse(['provider', 'update', 'globex', '--id-token-alg', 'RS256']);
    });

    it('updates only what it is given, keeps the secret, disables, refuses to remove an enabled provider, removes', async () => {
      const updated = await gatehouse([
        'provider',
        'update',
        'globex',
        '--tenant',
        't-globex',
        '--tenant',
        't-other',
      ]);
      expect(updated.code).toBe(0);
      expect(updated.stdout).toContain('tenants "t-globex", "t-other"');
      expect(updated.stdout).toContain('secret set');
      expect(updated.stdout).toContain('PKCE required');

      const enabledRemove = await gatehouse(['provider', 'remove', 'globex']);
      expect(enabledRemove.code).toBe(1);
      expect(enabledRemove.stderr).toContain('is enabled: disable it first');
      const disabled = await gatehouse(['provider', 'disable', 'globex']);
      expect(disabled.stdout).toContain('disabled provider "globex": no new logins through it');
      expect(disabled.stdout).toContain('; ended 0 sessions');
      const removed = await gatehouse(['provider', 'remove', 'globex']);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain(
        `removed provider "globex"; ended 0 sessions; its users' provider bindings are forgotten`,
      );
      const missing = await gatehouse(['provider', 'show', 'globex']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('error NOT_FOUND: no provider "globex"');
    });

    it('shows every registry change in the audit trail with the provider id', async () => {
      const audit = await gatehouse(['audit', '--since', '1h']);
      expect(audit.code).toBe(0);
      const events = audit.stdout
        .split('\n')
        .filter((line) => line.includes('provider='))
        .map((line) => /provider_\w+/.exec(line)?.[0]);
      expect(events).toEqual([
        'provider_added',
        'provider_updated',
        'provider_updated',
        'provider_updated',
        'provider_disabled',
        'provider_removed',
      ]);
      expect(audit.stdout).toContain('provider=globex');
      expect(audit.stdout).not.toContain(CLIENT_SECRET);
    });

    it('says, with SESSION_STORE=memory, that the sessions are out of its reach instead of a count', async () => {
      expect(
        (await gatehouse(addInitech('https://portal.example/initech/cb', '--client-secret-stdin'), 's\n'))
          .code,
      ).toBe(0);
      const disabled = await gatehouse(['provider', 'disable', 'initech'], undefined, {
        SESSION_STORE: 'memory',
      });
      expect(disabled.code).toBe(0);
      expect(disabled.stdout).toContain(
        "its sessions live in the service process (SESSION_STORE=memory), out of this command's reach",
      );
      expect(disabled.stdout).not.toContain('ended');
    });
  });
}
