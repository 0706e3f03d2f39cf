/**
 * docs/sso-adapters.md's commands for registering Acme's local provider, run as the page writes
 * them (read from the page: its variables, its commands, its arguments), against a real OpenID
 * provider on an http:// loopback issuer; and the two variables shown to be needed: without
 * SSO_INTERPRETERS the add is refused naming it, without OIDC_ALLOW_INSECURE_HTTP the provider's
 * test fails naming it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { type CliTarget, describeCliStore, openCliTarget, runGatehouse } from './cli-support.js';

const PAGE = readFileSync(new URL('../../docs/sso-adapters.md', import.meta.url), 'utf8');
const DOCUMENTED_ISSUER = 'http://127.0.0.1:9090';
const SECRET = 'acme-client-secret';

/** The ```sh block after "For Acme that is the equivalent of". */
function documentedBlock(): string {
  const at = PAGE.indexOf('For Acme that is the equivalent of');
  const start = PAGE.indexOf('```sh\n', at);
  return PAGE.slice(start + '```sh\n'.length, PAGE.indexOf('\n```', start + 1));
}

interface Documented {
  variables: Record<string, string>;
  /** Each command's arguments after `gatehouse`, and whether the secret is piped into it. */
  commands: Array<{ args: string[]; secretOnStdin: boolean }>;
}

/** The block's `export NAME=value` lines and its commands (continuation lines joined). */
function documented(): Documented {
  const lines = documentedBlock()
    .replaceAll('\\\n', ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const variables: Record<string, string> = {};
  const commands: Documented['commands'] = [];
  for (const line of lines) {
    const exported = /^export (\w+)=(.*)$/.exec(line);
    if (exported) {
      // "$(openssl rand -base64 32)" is a fresh key; every other value is taken as written.
      variables[exported[1]!] = exported[2]!.startsWith('"$(openssl rand -base64 32)"')
        ? randomBytes(32).toString('base64')
        : exported[2]!;
      continue;
    }
    const command = /^(?:printf '%s\\n' "\$ACME_CLIENT_SECRET" \| )?gatehouse (.*)$/.exec(line);
    if (!command) throw new Error(`not a line this test knows how to run: ${line}`);
    commands.push({ args: command[1]!.split(/\s+/), secretOnStdin: line.startsWith('printf') });
  }
  return { variables, commands };
}

describeCliStore('pglite', 'the provider example of docs/sso-adapters.md', () => {
  let target: CliTarget;
  let idp: TestProvider;
  let example: Documented;

  /** The documented command, against this run's provider and database. */
  const run = (args: string[], secretOnStdin: boolean, variables: Record<string, string>) =>
    runGatehouse(
      args.map((arg) => (arg === DOCUMENTED_ISSUER ? idp.issuer : arg)),
      { env: { ...target.env, ...variables }, ...(secretOnStdin ? { input: `${SECRET}\n` } : {}) },
    );

  beforeAll(async () => {
    [target, idp] = await Promise.all([openCliTarget('pglite'), startTestProvider()]);
    example = documented();
  });
  afterAll(async () => {
    await Promise.all([target?.close(), idp?.close()]);
  });

  it('states the three variables and runs as written: tenant, provider add, provider test', async () => {
    expect(Object.keys(example.variables).sort()).toEqual([
      'OIDC_ALLOW_INSECURE_HTTP',
      'SSO_INTERPRETERS',
      'TOKEN_ENCRYPTION_KEY',
    ]);
    expect(example.commands.map(({ args }) => args.slice(0, 2).join(' '))).toEqual([
      'tenant add',
      'provider add',
      'provider test',
    ]);
    for (const { args, secretOnStdin } of example.commands) {
      const result = await run(args, secretOnStdin, example.variables);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
  });

  it('refuses the add without SSO_INTERPRETERS, and fails the test without OIDC_ALLOW_INSECURE_HTTP, naming each', async () => {
    const add = example.commands.find(({ args }) => args[1] === 'add' && args[0] === 'provider')!;
    const { SSO_INTERPRETERS: _interpreters, ...withoutInterpreters } = example.variables;
    // Another id and redirect URI than the first run's, so the interpreter is the only fault.
    const secondAdd = add.args.map((arg, i) =>
      i === 2 ? 'acme-two' : arg.startsWith('http://localhost:') ? `${arg}-two` : arg,
    );
    const withoutNames = await run(secondAdd, true, withoutInterpreters);
    expect(withoutNames.code).toBe(1);
    expect(withoutNames.stderr).toContain('SSO_INTERPRETERS');

    const test = example.commands.find(({ args }) => args[1] === 'test')!;
    const { OIDC_ALLOW_INSECURE_HTTP: _insecure, ...withoutInsecure } = example.variables;
    const refused = await run(test.args, false, withoutInsecure);
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain('OIDC_ALLOW_INSECURE_HTTP');
  });
});
