import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { Container } from 'inversify';
import { DataDirInUseError } from '../adapters/sql/data-dir-lock.js';
import { translateStoreError } from '../adapters/sql/store-errors.js';
import type { AdminDirectory } from '../application/admin/admin-directory.js';
import type { AdminProviders } from '../application/admin/admin-providers.js';
import type { AdminUsers } from '../application/admin/admin-users.js';
import type { ImportRecord, ImportUsers } from '../application/admin/import-users.js';
import type { Config } from '../boot/config/config.js';
import { TOKENS } from '../boot/tokens.js';
import { isDomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import { isUserLevel, type User } from '../domain/user/user.js';
import { describeLevel } from '../domain/user/user-rules.js';
import { escapeForDisplay } from '../domain/user/username.js';
import type { CommandRequest } from './admin-socket-protocol.js';
import type { ForwardedIo } from './admin-socket-server.js';
import { planAudit } from './audit-command.js';
import { type PasswordSource, readPassword, readSecretLines } from './password-input.js';
import { ProbeFailed, type ProviderCommandContext, planProvider } from './provider-command.js';
import { USAGE, UsageError } from './usage.js';

/**
 * The `gatehouse` administration command: a thin adapter that parses the command line, wires the
 * same store, hasher and password policy as the service, and calls the use cases of
 * src/application/admin. Exit status 0 done, 1 refused by the domain, 2 usage or configuration.
 * On the embedded database held by the running service, the service runs the same code for it
 * (runInService, runForwarded). What only a run needs (configuration, container, store, logger,
 * OpenID client) is imported when it runs, so help and usage errors load only this parsing.
 */

export interface CliIo extends PasswordSource {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
}

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

interface Context {
  config: Config;
  store: Store;
  applied: string[];
  users: AdminUsers;
  directory: AdminDirectory;
  importer: ImportUsers;
  providers: ProviderCommandContext;
  out(line: string): void;
}

interface Plan {
  /** Read a password from standard input (for this account label) before the store opens. */
  passwordFor?: string;
  /** Read these secrets from standard input, one line each, in this order (by label). */
  secretsFor?: readonly string[];
  /** The file the command reads (`import FILE`): read where the command runs, given to prepare. */
  reads?: string;
  /** Work on that file that needs neither the store nor a password (parsing an import file). */
  prepare?: (content: string) => Promise<void>;
  run(context: Context, password: string | null, secrets: readonly string[]): Promise<void>;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;
type Values = Record<string, string | boolean | undefined>;

/**
 * Shows a value from the store or the user on a terminal: control, format and invisible
 * characters are shown escaped (`adm\u{200B}in`), so no stored oddity passes for another name.
 */
const clean = escapeForDisplay;

function quoted(value: string): string {
  return `"${clean(value)}"`;
}

function parse(args: readonly string[], options: OptionSpec, positionals: string[]) {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true }) as {
      values: Values;
      positionals: string[];
    };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length !== positionals.length) {
    const expected = positionals.length === 0 ? 'no argument' : positionals.join(' ');
    throw new UsageError(`expected ${expected}, got ${parsed.positionals.length} argument(s)`);
  }
  const values = parsed.values;
  const text = (name: string): string | null => {
    const value = values[name];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  return {
    args: parsed.positionals,
    text,
    required(name: string): string {
      const value = text(name);
      if (value === null) throw new UsageError(`--${name} is required`);
      return value;
    },
    flag: (name: string): boolean => values[name] === true,
  };
}

function wholeNumber(name: string, value: string | null): number | null {
  if (value === null) return null;
  if (!/^\d{1,6}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

/** Passwords never go on the command line: refused before anything else looks at it. */
function refusePasswordArgument(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg === '--') return;
    if (arg === '--password' || arg.startsWith('--password=')) {
      throw new UsageError(
        '--password is not accepted: a password on the command line ends up in shell history and ' +
          'process lists. Pipe it in with --password-stdin.',
      );
    }
  }
}

function describeUser(user: User): string {
  const parts = [`user_id ${quoted(user.userId)}`];
  parts.push(isUserLevel(user.userLevel) ? describeLevel(user.userLevel) : `level ${user.userLevel}`);
  if (user.tenantId !== null) parts.push(`tenant ${quoted(user.tenantId)}`);
  if (user.groupId !== null) parts.push(`group ${quoted(user.groupId)}`);
  if (user.backend) parts.push(`backend ${quoted(user.backend.name)}`);
  return parts.join(', ');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

const USER_ADD_OPTIONS: OptionSpec = {
  level: { type: 'string' },
  tenant: { type: 'string' },
  group: { type: 'string' },
  'user-id': { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  email: { type: 'string' },
  phone: { type: 'string' },
  language: { type: 'string' },
  'language-code': { type: 'string' },
  'platform-type': { type: 'string' },
  'access-type': { type: 'string' },
  'read-only': { type: 'boolean' },
  'user-type': { type: 'string' },
  role: { type: 'string' },
  enterprise: { type: 'boolean' },
  backend: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'no-password': { type: 'boolean' },
};

function planUserAdd(args: readonly string[]): Plan {
  const p = parse(args, USER_ADD_OPTIONS, ['USERNAME']);
  const username = p.args[0]!;
  const level = wholeNumber('level', p.required('level'))!;
  const accessType = wholeNumber('access-type', p.text('access-type'));
  const withPassword = p.flag('password-stdin');
  if (withPassword === p.flag('no-password')) {
    throw new UsageError('give --password-stdin (password on standard input) or --no-password');
  }
  return {
    ...(withPassword ? { passwordFor: username } : {}),
    async run(context, password) {
      const user = await context.users.add({
        username,
        userLevel: level,
        tenantId: p.text('tenant'),
        groupId: p.text('group'),
        userId: p.text('user-id'),
        backendName: p.text('backend'),
        firstName: p.text('first-name'),
        lastName: p.text('last-name'),
        emailAddress: p.text('email'),
        phoneNumber: p.text('phone'),
        language: p.text('language'),
        languageCode: p.text('language-code'),
        platformType: p.text('platform-type'),
        accessType,
        readOnly: p.flag('read-only') ? true : null,
        userType: p.text('user-type'),
        role: p.text('role'),
        isEnterprise: p.flag('enterprise') ? true : null,
        password,
      });
      context.out(`added user ${quoted(user.username)}: ${describeUser(user)}`);
      context.out(
        password === null
          ? 'it has no password: it can only log in with single sign-on'
          : 'its password must be changed at first login',
      );
    },
  };
}

function planUser(args: readonly string[]): Plan {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return planUserAdd(rest);
    case 'set-password': {
      const p = parse(rest, { 'password-stdin': { type: 'boolean' } }, ['USERNAME']);
      if (!p.flag('password-stdin')) throw new UsageError('--password-stdin is required');
      const username = p.args[0]!;
      return {
        passwordFor: username,
        async run(context, password) {
          const { user, sessionsEnded } = await context.users.setPassword(username, password!);
          context.out(`set the password of ${quoted(user.username)}; it must be changed at next login`);
          context.out(`ended ${plural(sessionsEnded, 'session')}`);
        },
      };
    }
    case 'expire': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const user = await context.users.expire(username);
          const at = user.credentialsExpireAt?.toISOString() ?? 'now';
          context.out(`the credentials of ${quoted(user.username)} expired at ${at}`);
        },
      };
    }
    case 'disable': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const { user, sessionsEnded } = await context.users.disable(username);
          context.out(`disabled ${quoted(user.username)}; ended ${plural(sessionsEnded, 'session')}`);
        },
      };
    }
    case 'enable': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const user = await context.users.enable(username);
          context.out(`enabled ${quoted(user.username)}`);
        },
      };
    }
    case 'reset-sso': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const { user, wasBound, sessionsEnded } = await context.users.resetSso(username);
          const ended =
            context.config.sessionStore.kind === 'memory'
              ? "its sessions made through that provider live in the service process (SESSION_STORE=memory), out of this command's reach"
              : `ended ${plural(sessionsEnded, 'session')} made through that provider`;
          context.out(
            wasBound
              ? `${quoted(user.username)} is no longer bound to a provider account; the next SSO login binds it; ${ended}`
              : `${quoted(user.username)} was not bound to a provider account`,
          );
        },
      };
    }
    default:
      throw unknownSubcommand('user', sub, [
        'add',
        'set-password',
        'expire',
        'disable',
        'enable',
        'reset-sso',
      ]);
  }
}

function planSessions(args: readonly string[]): Plan {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const username = parse(rest, { user: { type: 'string' } }, []).required('user');
      return {
        async run(context) {
          const { user, sessions } = await context.users.listSessions(username, context.config.session);
          context.out(`${plural(sessions.length, 'session')} of ${quoted(user.username)}`);
          for (const session of sessions) {
            context.out(
              [
                `  ${clean(session.handle)}`,
                session.method,
                session.alive ? 'active' : 'timed-out',
                `created ${session.createdAt.toISOString()}`,
                `last seen ${session.lastSeenAt.toISOString()}`,
                `expires ${session.expiresAt.toISOString()}`,
                `from ${clean(session.clientAddress ?? '-')}`,
                session.userAgent ? quoted(session.userAgent) : '-',
              ].join('  '),
            );
          }
        },
      };
    }
    case 'revoke': {
      const p = parse(
        rest,
        { user: { type: 'string' }, handle: { type: 'string' }, all: { type: 'boolean' } },
        [],
      );
      const handle = p.text('handle');
      if (p.flag('all')) {
        if (p.text('user') !== null) throw new UsageError('--all and --user are mutually exclusive');
        if (handle !== null) throw new UsageError('--handle needs --user, not --all');
        return {
          async run(context) {
            const { sessionsEnded } = await context.users.revokeAllSessions();
            context.out(`ended ${plural(sessionsEnded, 'session')} of all users`);
          },
        };
      }
      const username = p.text('user');
      if (username === null) throw new UsageError('--user or --all is required');
      return {
        async run(context) {
          const { user, sessionsEnded } = await context.users.revokeSessions(username, handle ?? undefined);
          context.out(`ended ${plural(sessionsEnded, 'session')} of ${quoted(user.username)}`);
        },
      };
    }
    default:
      throw unknownSubcommand('sessions', sub, ['list', 'revoke']);
  }
}

function planImport(args: readonly string[]): Plan {
  const file = parse(args, {}, ['FILE.jsonl']).args[0]!;
  let records: ImportRecord[] = [];
  return {
    reads: file,
    async prepare(content) {
      const { parseImportFile } = await import('./import-file.js');
      records = parseImportFile(content);
    },
    async run(context) {
      const counts = await context.importer.execute(records);
      context.out(
        `imported ${file}: ${plural(counts.tenants, 'tenant')}, ${plural(counts.backends, 'backend')}, ` +
          `${plural(counts.groups, 'group')}, ${plural(counts.users, 'user')}`,
      );
    },
  };
}

function unknownSubcommand(command: string, sub: string | undefined, known: string[]): UsageError {
  return new UsageError(
    sub === undefined
      ? `${command}: a subcommand is required (${known.join(', ')})`
      : `${command}: unknown subcommand ${quoted(sub)} (${known.join(', ')})`,
  );
}

/** The plan of one command line; `null` for help. Throws UsageError on a malformed line. */
function plan(argv: readonly string[]): Plan | null {
  refusePasswordArgument(argv);
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required');
    case 'help':
    case '--help':
    case '-h':
      return null;
    case 'migrate':
      parse(rest, {}, []);
      return {
        async run(context) {
          for (const name of context.applied) context.out(`applied migration ${name}`);
          if (context.applied.length === 0) context.out('the database is up to date: no migration to apply');
        },
      };
    case 'tenant': {
      const [sub, ...options] = rest;
      if (sub !== 'add') throw unknownSubcommand('tenant', sub, ['add']);
      const p = parse(options, { name: { type: 'string' } }, ['ID']);
      const id = p.args[0]!;
      return {
        async run(context) {
          await context.directory.addTenant({ id, name: p.text('name') });
          context.out(`added tenant ${quoted(id)}`);
        },
      };
    }
    case 'group': {
      const [sub, ...options] = rest;
      if (sub !== 'add') throw unknownSubcommand('group', sub, ['add']);
      const p = parse(options, { tenant: { type: 'string' }, name: { type: 'string' } }, ['ID']);
      const id = p.args[0]!;
      const tenantId = p.required('tenant');
      return {
        async run(context) {
          await context.directory.addGroup({ id, tenantId, name: p.text('name') });
          context.out(`added group ${quoted(id)} to tenant ${quoted(tenantId)}`);
        },
      };
    }
    case 'backend': {
      const [sub, ...options] = rest;
      if (sub !== 'add') throw unknownSubcommand('backend', sub, ['add']);
      const p = parse(options, { 'external-name': { type: 'string' } }, ['NAME']);
      const name = p.args[0]!;
      const externalName = p.required('external-name');
      return {
        async run(context) {
          await context.directory.addBackend({ name, externalName });
          context.out(`added backend ${quoted(name)} (${quoted(externalName)})`);
        },
      };
    }
    case 'user':
      return planUser(rest);
    case 'sessions':
      return planSessions(rest);
    case 'import':
      return planImport(rest);
    case 'audit':
      return planAudit(rest);
    case 'provider': {
      const providerPlan = planProvider(rest);
      return {
        ...(providerPlan.stdin.length > 0 ? { secretsFor: providerPlan.stdin } : {}),
        run: (context, _password, secrets) => providerPlan.run(context.providers, secrets),
      };
    }
    default:
      throw new UsageError(`unknown command ${quoted(command)}`);
  }
}

/** The provider registry as the command reaches it: secrets sealed with TOKEN_ENCRYPTION_KEY. */
function providerCommandContext(
  config: Config,
  providers: AdminProviders,
  out: (line: string) => void,
): ProviderCommandContext {
  return {
    providers,
    defaultLevels: config.sso.userLevels,
    pollMs: config.sso.registryPollMs,
    sessionsOutOfReach: config.sessionStore.kind === 'memory',
    async probe(id) {
      const provider = await providers.show(id);
      const { probeProvider } = await import('../adapters/openid/provider-probe.js');
      return probeProvider({
        issuer: provider.issuer,
        idTokenAlg: provider.idTokenAlg,
        timeoutMs: config.sso.providerTimeoutMs,
        allowInsecureHttp: config.sso.allowInsecureHttp,
        endpointOrigins: config.sso.endpointOrigins,
      });
    },
    out,
  };
}

/** Writes the error line(s) and gives the exit status. Never a stack trace for an expected error. */
async function report(error: unknown, io: ForwardedIo): Promise<number> {
  if (error instanceof UsageError) {
    io.stderr.write(`error USAGE: ${error.message}\nRun "gatehouse help" for the usage.\n`);
    return EXIT_USAGE;
  }
  // Past the command line, the configuration has been loaded: no extra cost.
  const { ConfigError } = await import('../boot/config/config.js');
  if (error instanceof ProbeFailed) {
    io.stderr.write(`error PROVIDER_TEST_FAILED: ${clean(error.message)}\n`);
    return EXIT_REFUSED;
  }
  if (error instanceof ConfigError) {
    for (const problem of error.problems) io.stderr.write(`error CONFIG: ${problem}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof DataDirInUseError) {
    io.stderr.write(`error DATA_DIR_IN_USE: ${error.message}\n`);
    return EXIT_REFUSED;
  }
  let failure = error;
  if (!isDomainError(failure)) {
    try {
      translateStoreError(failure);
    } catch (translated) {
      failure = translated;
    }
  }
  if (isDomainError(failure)) {
    const detail =
      failure.code === 'SERVICE_UNAVAILABLE' && failure.cause instanceof Error
        ? ` (${failure.cause.message})`
        : '';
    io.stderr.write(`error ${failure.code}: ${clean(failure.message)}${detail}\n`);
    for (const entry of failure.errors ?? []) {
      const line = `${entry.path}: ${entry.message}`;
      if (!failure.message.includes(line)) io.stderr.write(`  ${clean(line)}\n`);
    }
    return EXIT_REFUSED;
  }
  const message = failure instanceof Error ? failure.message : String(failure);
  io.stderr.write(`error INTERNAL_ERROR: ${clean(message)}\n`);
  return EXIT_REFUSED;
}

/**
 * SESSION_STORE=memory keeps sessions inside the service's process: this command's own store
 * would be an empty other one, so a revocation here would end nothing (and a new password or a
 * disabled account would leave the old sessions alive). Refused, saying why, instead of answering
 * "ended 0 sessions".
 */
function refuseSessionsOutOfReach(config: Config, argv: readonly string[]): void {
  const endsSessions =
    argv[0] === 'sessions' || (argv[0] === 'user' && (argv[1] === 'set-password' || argv[1] === 'disable'));
  if (config.sessionStore.kind !== 'memory' || !endsSessions) return;
  throw new UsageError(
    "SESSION_STORE=memory: the sessions live in the service process, out of this command's reach; " +
      'end them through the service (a restart ends them all) or use SESSION_STORE=sql or redis',
  );
}

function lineWriter(target: CliIo['stderr']): Writable {
  return new Writable({
    write(chunk, _encoding, callback) {
      target.write(String(chunk));
      callback();
    },
  });
}

/** The file a plan reads, read here (a missing or unreadable one is a usage error, naming it). */
async function readPlanFile(commandPlan: Plan): Promise<string | null> {
  if (commandPlan.reads === undefined) return null;
  try {
    return await readFile(commandPlan.reads, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${commandPlan.reads}${code ? ` (${code})` : ''}`);
  }
}

/** What a plan runs against: the use cases of a service container, writing to `io`. */
function contextOver(container: Container, config: Config, applied: string[], io: ForwardedIo): Context {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  return {
    config,
    store: container.get(TOKENS.Store),
    applied,
    users: container.get(TOKENS.AdminUsers),
    directory: container.get(TOKENS.AdminDirectory),
    importer: container.get(TOKENS.ImportUsers),
    providers: providerCommandContext(config, container.get(TOKENS.AdminProviders), out),
    out,
  };
}

/** Runs one command line; resolves to the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const commandPlan = plan(argv);
    if (commandPlan === null) {
      io.stdout.write(USAGE);
      return EXIT_OK;
    }
    const { loadConfig } = await import('../boot/config/config.js');
    const config = loadConfig(io.env);
    const { runInService, serviceHolds } = await import('./admin-socket-client.js');
    // The embedded database held by the running service: the service runs the command (and
    // reaches its sessions wherever they are, its own process included).
    const dataDir = config.database.kind === 'pglite' ? config.database.dataDir : null;
    const viaService = dataDir !== null && serviceHolds(dataDir);
    if (!viaService) refuseSessionsOutOfReach(config, argv);
    const file = await readPlanFile(commandPlan);
    if (file !== null) await commandPlan.prepare?.(file);
    const password = commandPlan.passwordFor ? await readPassword(io, commandPlan.passwordFor) : null;
    const secrets = commandPlan.secretsFor ? await readSecretLines(io, commandPlan.secretsFor) : [];
    if (viaService) {
      const status = await runInService(dataDir, { argv: [...argv], secret: password, secrets, file }, io);
      if (status !== null) return status;
    }

    // The service's container: the same use cases, and the sessions a command ends are logged as
    // the service logs its own (on standard error).
    const [{ openServiceContainer }, { createLogger }] = await Promise.all([
      import('../boot/service-container.js'),
      import('../adapters/logging/logger.js'),
    ]);
    const { container, applied } = await openServiceContainer({
      config,
      logger: createLogger(config.logLevel, lineWriter(io.stderr)),
    });
    const store = container.get(TOKENS.Store);
    try {
      const note = argv[0] === 'migrate' ? undefined : applied;
      for (const name of note ?? []) io.stderr.write(`note: applied migration ${name}\n`);
      await commandPlan.run(contextOver(container, config, applied, io), password, secrets);
    } finally {
      await store.close();
    }
    return EXIT_OK;
  } catch (error) {
    return report(error, io);
  }
}

/**
 * Runs a command line another process sent to the running service (admin-socket-server.ts):
 * the same plan, over the service's own container, with what the command read (its password or
 * secret, its file) sent along. The service's store stays open; its configuration applies.
 */
export async function runForwarded(
  container: Container,
  config: Config,
  request: CommandRequest,
  io: ForwardedIo,
): Promise<number> {
  try {
    const commandPlan = plan(request.argv);
    if (commandPlan === null) {
      io.stdout.write(USAGE);
      return EXIT_OK;
    }
    if (commandPlan.reads !== undefined) {
      if (request.file === null) throw new UsageError(`the content of ${commandPlan.reads} was not sent`);
      await commandPlan.prepare?.(request.file);
    }
    if (commandPlan.passwordFor && request.secret === null) {
      throw new UsageError(`the input for ${commandPlan.passwordFor} was not sent`);
    }
    const expected = commandPlan.secretsFor?.length ?? 0;
    if (request.secrets.length !== expected) {
      throw new UsageError(`${expected} secret line(s) were expected, ${request.secrets.length} sent`);
    }
    await commandPlan.run(contextOver(container, config, [], io), request.secret, request.secrets);
    return EXIT_OK;
  } catch (error) {
    return report(error, io);
  }
}
