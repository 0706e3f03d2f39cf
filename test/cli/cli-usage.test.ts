import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, runGatehouse } from './cli-support.js';

describe('gatehouse command line, before any database', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('prints the usage on help, exit 0', async () => {
    const result = await runGatehouse(['help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: gatehouse <command>/);
    for (const command of ['migrate', 'tenant add', 'user set-password', 'sessions revoke', 'import FILE']) {
      expect(result.stdout).toContain(command);
    }
    expect(result.stderr).toBe('');
  });

  it('refuses a password on the command line, exit 2, without echoing it', async () => {
    const result = await runGatehouse([
      'user',
      'add',
      'mallory',
      '--level',
      '16',
      '--password=hunter2-secret',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error USAGE: --password is not accepted/);
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stdout).toBe('');
  });

  it('names the bad variable of a configuration error, exit 2, no stack trace', async () => {
    const result = await runGatehouse(['migrate'], { env: { PORT: 'abc' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error CONFIG: PORT: must be a whole number\n');
    expect(result.stdout).toBe('');
  });

  it('refuses to end sessions kept in the service process (SESSION_STORE=memory), exit 2', async () => {
    for (const argv of [
      ['sessions', 'revoke', '--all'],
      ['sessions', 'list', '--user', 'ann'],
      ['user', 'set-password', 'ann', '--password-stdin'],
      ['user', 'disable', 'ann'],
    ]) {
      const result = await runGatehouse(argv, { env: { SESSION_STORE: 'memory' } });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^error USAGE: SESSION_STORE=memory: the sessions live in the service process/,
      );
      expect(result.stdout).toBe('');
    }
  });

  it('answers a missing option with a usage error, exit 2', async () => {
    const missing = await runGatehouse(['group', 'add', 'g1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error USAGE: --tenant is required\n/);
  });

  it('sessions revoke needs --user or --all, and --all takes neither --user nor --handle', async () => {
    for (const [args, message] of [
      [[], '--user or --all is required'],
      [['--handle', 'h1'], '--user or --all is required'],
      [['--all', '--handle', 'h1'], '--handle needs --user, not --all'],
    ] as const) {
      const result = await runGatehouse(['sessions', 'revoke', ...args]);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(new RegExp(`^error USAGE: ${message}\n`));
    }
  });
});
