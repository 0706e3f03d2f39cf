import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import type { ProviderSettings } from '../../src/domain/sso/provider-registration.js';
import { providerSettings } from '../contract/provider-registry.contract.js';
import type { StoreKind } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import {
  type CliTarget,
  describeCliStore,
  openCliTarget,
  providerAddArgs,
  runGatehouse,
} from './cli-support.js';

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
    /** A provider's secrets as the registry keeps them, opened with the command's key. */
    const storedSecrets = (id: string) =>
      target.withStore(
        async (store) =>
          (await new SqlProviderRegistry(store.client, AesTokenSealer.fromBase64(KEY, [])).find(id))?.secrets,
      );
    /** The arguments of adding provider "initech" for the tenant t-other at `redirectUri`, then `more`. */
    const addInitech = (redirectUri: string, ...more: string[]) =>
      providerAddArgs('initech', {
        issuer: idp.issuer,
        clientId: 'x',
        redirectUris: [redirectUri],
        tenants: ['t-other'],
        more,
      });

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
        providerAddArgs('globex', {
          issuer: idp.issuer,
          clientId: 'gatehouse',
          redirectUris: ['https://portal.example/globex/cb', 'https://portal.example/globex/cb?v=2'],
          tenants: ['t-globex'],
          more: [
            '--interpreter',
            'globex',
            '--setting',
            `API_TOKEN=${SETTING_VALUE}`,
            '--levels',
            '8,12',
            '--require-pkce',
            '--require-mfa',
            '--acr-values',
            'urn:example:gold, silver',
            '--client-secret-stdin',
          ],
        }),
        `${CLIENT_SECRET}\n`,
      );
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(added.stdout).toContain('added provider "globex"');
      expect(added.stdout).toContain('client id "gatehouse" (client_secret_basic, secret set)');
      expect(added.stdout).toContain('settings "API_TOKEN"');
      expect(added.stdout).toContain('levels 8, 12; PKCE required');
      expect(added.stdout).toContain('second factor required; acr values "urn:example:gold", "silver"');

      const listed = await gatehouse(['provider', 'list']);
      expect(listed.stdout).toContain(
        `"globex"  enabled  ${idp.issuer}  tenants "t-globex"  second factor required`,
      );
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

      const badAcr = await gatehouse(
        addInitech(
          'https://portal.example/initech/cb',
          '--acr-values',
          'gold,has space',
          '--client-secret-stdin',
        ),
        's\n',
      );
      expect(badAcr.code).toBe(2);
      expect(badAcr.stderr).toContain('--acr-values: "has space" is not an acr value');

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
        '--no-require-mfa',
        '--acr-values',
        '',
      ]);
      expect(updated.code).toBe(0);
      expect(updated.stdout).toContain('tenants "t-globex", "t-other"');
      expect(updated.stdout).toContain('second factor not required; no acr values');
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
      // The suite's tests share one database: the next one registers initech afresh.
      expect(
        (await gatehouse(['provider', 'remove', 'initech'], undefined, { SESSION_STORE: 'memory' })).code,
      ).toBe(0);
    });

    it('reads --setting-stdin values from standard input after the client secret, never from the command line', async () => {
      const added = await gatehouse(
        [
          ...addInitech('https://portal.example/initech/cb', '--interpreter', 'globex'),
          '--setting',
          'REGION=eu',
          '--client-secret-stdin',
          '--setting-stdin',
          'API_TOKEN',
          '--setting-stdin',
          'SIGNING_SECRET',
        ],
        `${CLIENT_SECRET}\n${SETTING_VALUE}\nsigning-secret-never-printed\n`,
      );
      expect(added.stderr).toBe('');
      expect(added.stdout).toContain('settings "API_TOKEN", "REGION", "SIGNING_SECRET"');
      expect(added.stdout).not.toContain(SETTING_VALUE);
      expect(await storedSecrets('initech')).toEqual({
        clientSecret: CLIENT_SECRET,
        settings: { API_TOKEN: SETTING_VALUE, REGION: 'eu', SIGNING_SECRET: 'signing-secret-never-printed' },
      });

      // Too few lines: refused before anything is written, naming what each line is for.
      const short = await gatehouse(
        ['provider', 'update', 'initech', '--client-secret-stdin', '--setting-stdin', 'API_TOKEN'],
        'only-one-line\n',
      );
      expect(short.code).toBe(2);
      expect(short.stderr).toContain(
        'standard input must hold 2 non-empty lines, in this order: the client secret of provider initech; the setting API_TOKEN of provider initech',
      );
      const twice = await gatehouse(
        ['provider', 'update', 'initech', '--setting', 'API_TOKEN=x', '--setting-stdin', 'API_TOKEN'],
        'y\n',
      );
      expect(twice.code).toBe(2);
      expect(twice.stderr).toContain('setting "API_TOKEN" is given twice (--setting, --setting-stdin)');

      // Alone, one setting's value is the one line; the other secrets are kept.
      const rotated = await gatehouse(
        ['provider', 'update', 'initech', '--setting-stdin', 'API_TOKEN'],
        'rotated\n',
      );
      expect(rotated.code).toBe(0);
      expect(await storedSecrets('initech')).toEqual({
        clientSecret: CLIENT_SECRET,
        settings: { API_TOKEN: 'rotated', REGION: 'eu', SIGNING_SECRET: 'signing-secret-never-printed' },
      });
    });

    it('says in list and show which providers this configuration cannot load, and why; refuses to update one it cannot open, lets it be disabled, and warns when it is enabled', async () => {
      // Three rows written from shells configured otherwise than the instances (in-process here,
      // to spare three command start-ups): another key, no OIDC_*, another SSO_INTERPRETERS.
      await target.withStore(async (store) => {
        const secrets = { clientSecret: 's', settings: {} };
        const context = { now: new Date(), actor: 'administrator' } as const;
        const row = (id: string, more: Partial<ProviderSettings> = {}) =>
          providerSettings(id, { tenants: ['t-other'], issuer: idp.issuer, ...more });
        await new SqlProviderRegistry(store.client, AesTokenSealer.random()).add(
          row('sealed-elsewhere'),
          secrets,
          context,
        );
        const registry = new SqlProviderRegistry(store.client, AesTokenSealer.fromBase64(KEY, []));
        await registry.add(
          row('colliding', {
            redirectUris: ['https://portal.example/colliding/cb', 'https://portal.example/sso/cb'],
          }),
          secrets,
          context,
        );
        await registry.add(row('unknown-interpreter', { interpreter: 'gone' }), secrets, context);
      });
      // The instances' configuration: OIDC_* set, no interpreter "gone".
      const instanceEnv = {
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: 'portal',
        OIDC_CLIENT_SECRET: 'portal-secret',
        OIDC_REDIRECT_URIS: 'https://portal.example/sso/cb',
      };
      const listed = await gatehouse(['provider', 'list'], undefined, instanceEnv);
      expect(listed.code).toBe(0);
      const reasons: Record<string, string> = {
        colliding:
          "its redirect URI https://portal.example/sso/cb belongs to the environment's provider (OIDC_REDIRECT_URIS)",
        'sealed-elsewhere':
          'its secrets do not open with TOKEN_ENCRYPTION_KEY (nor TOKEN_ENCRYPTION_KEYS_PREVIOUS): they were sealed under another key',
        'unknown-interpreter': 'its interpreter "gone" is not named in SSO_INTERPRETERS',
      };
      // Each provider's line, then (indented) why this configuration cannot load it.
      for (const [id, reason] of Object.entries(reasons)) {
        expect(listed.stdout).toMatch(
          new RegExp(`\\n {2}"${id}" {2}enabled [^\\n]*\\n {4}cannot be loaded with this configuration: `),
        );
        expect(listed.stdout).toContain(`    cannot be loaded with this configuration: ${reason}\n`);
      }
      expect(listed.stdout.match(/cannot be loaded/g)).toHaveLength(3);

      const shown = await gatehouse(['provider', 'show', 'sealed-elsewhere'], undefined, instanceEnv);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('(client_secret_basic, secrets sealed under another key)');
      expect(shown.stdout).toContain(
        `  cannot be loaded with this configuration: ${reasons['sealed-elsewhere']}`,
      );

      const update = await gatehouse(['provider', 'update', 'sealed-elsewhere', '--levels', '4']);
      expect(update.code).toBe(1);
      expect(update.stderr).toContain(
        'error INVALID_REQUEST: TOKEN_ENCRYPTION_KEY: the secrets of provider "sealed-elsewhere" do not open with it',
      );
      expect((await gatehouse(['provider', 'disable', 'sealed-elsewhere'])).code).toBe(0);
      // Enabling it again says at once that this configuration cannot load it.
      const enabled = await gatehouse(['provider', 'enable', 'sealed-elsewhere']);
      expect(enabled.code).toBe(0);
      expect(enabled.stdout).toContain(
        `enabled provider "sealed-elsewhere": its logins resume on every instance within 5000 ms; sessions ended before stay ended\n  cannot be loaded with this configuration: ${reasons['sealed-elsewhere']}\n`,
      );
    });

    it('escapes what a hostile provider sends before printing it', async () => {
      const hostile = await startHostileProvider();
      try {
        const added = await gatehouse(
          providerAddArgs('hostile', {
            issuer: hostile.issuer,
            clientId: 'x',
            redirectUris: ['https://portal.example/hostile/cb'],
            tenants: ['t-other'],
            more: ['--client-secret-stdin'],
          }),
          's\n',
        );
        expect(added.code).toBe(0);
        const tested = await gatehouse(['provider', 'test', 'hostile']);
        expect(tested.code).toBe(1);
        // No escape sequence, bell or carriage return reaches the terminal, and no line is forged.
        expect(controlCharacters(tested.stdout)).toEqual([]);
        for (const line of tested.stdout.split('\n').filter(Boolean)) {
          expect(line).toMatch(/^(ok {4}|fail {2}|note {2})/);
        }
        expect(tested.stdout).toContain(
          'fail  issuer: discovery names "\\u{1B}[2J\\u{1B}[31mpwned\\u{A}ok    keys all fine\\u{D}"',
        );
        expect(tested.stdout).toContain(
          'note  the provider advertises "\\u{1B}]0;owned\\u{7}", "RS\\u{A}256", not RS256',
        );
      } finally {
        await hostile.close();
      }
    });
  });
}

/** The control characters of `text` other than its line breaks (C0, DEL, C1). */
function controlCharacters(text: string): string[] {
  return [...text].filter((character) => character !== '\n' && /\p{Cc}/u.test(character));
}

/**
 * A provider whose discovery document and key set carry terminal escape sequences, control
 * characters and line breaks where names are expected.
 */
async function startHostileProvider(): Promise<{ issuer: string; close(): Promise<void> }> {
  let issuer = '';
  const server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.url === '/keys') {
      response.end(JSON.stringify({ keys: [{ kty: '\u001b[1mRSA', n: 'x', e: 'AQAB' }] }));
      return;
    }
    response.end(
      JSON.stringify({
        issuer: '\u001b[2J\u001b[31mpwned\nok    keys all fine\r',
        jwks_uri: `${issuer}/keys`,
        id_token_signing_alg_values_supported: ['\u001b]0;owned\u0007', 'RS\n256'],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
