import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { Config } from '../boot/config/config.js';
import { isDomainError } from '../domain/shared/domain-error.js';
import type { CommandRequest } from './admin-socket-protocol.js';
import type { ForwardedIo } from './admin-socket-server.js';
import { clean } from './command-line.js';
import type { CommandParts } from './command-parts.js';
import type { CommandContext, Plan } from './command-plan.js';
import { type PasswordSource, readPassword, readSecretLines } from './password-input.js';
import { plan } from './plan.js';
import { ProbeFailed } from './provider-command.js';
import { USAGE, UsageError } from './usage.js';

/**
 * The `gatehouse` administration command: a thin adapter that parses the command line and calls
 * the administration use cases of the service's own container (src/boot/command-parts.ts).
 * Exit status 0 done, 1 refused by the domain, 2 usage or configuration.
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

/** Writes the error line(s) and gives the exit status. Never a stack trace for an expected error. */
async function report(error: unknown, io: ForwardedIo): Promise<number> {
  if (error instanceof UsageError) {
    io.stderr.write(`error USAGE: ${error.message}\nRun "gatehouse help" for the usage.\n`);
    return EXIT_USAGE;
  }
  if (error instanceof ProbeFailed) {
    io.stderr.write(`error PROVIDER_TEST_FAILED: ${clean(error.message)}\n`);
    return EXIT_REFUSED;
  }
  // Past the command line, the configuration has been loaded: no extra cost.
  const { commandFailure } = await import('../boot/command-failures.js');
  const failure = commandFailure(error);
  if (failure.kind === 'config') {
    for (const problem of failure.problems) io.stderr.write(`error CONFIG: ${problem}\n`);
    return EXIT_USAGE;
  }
  if (failure.kind === 'data-dir-in-use') {
    io.stderr.write(`error DATA_DIR_IN_USE: ${failure.message}\n`);
    return EXIT_REFUSED;
  }
  const cause = failure.error;
  if (isDomainError(cause)) {
    const detail =
      cause.code === 'SERVICE_UNAVAILABLE' && cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
    io.stderr.write(`error ${cause.code}: ${clean(cause.message)}${detail}\n`);
    for (const entry of cause.errors ?? []) {
      const line = `${entry.path}: ${entry.message}`;
      if (!cause.message.includes(line)) io.stderr.write(`  ${clean(line)}\n`);
    }
    return EXIT_REFUSED;
  }
  const message = cause instanceof Error ? cause.message : String(cause);
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

/** What a plan runs against: the wiring room's command parts, writing to `io`. */
function contextOver(parts: CommandParts, io: ForwardedIo): CommandContext {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const { config } = parts;
  return {
    config,
    applied: parts.applied,
    users: parts.users,
    directory: parts.directory,
    importer: parts.importer,
    audit: parts.audit,
    // The provider registry as the command reaches it: secrets sealed with TOKEN_ENCRYPTION_KEY.
    providers: {
      providers: parts.providers,
      defaultLevels: config.sso.userLevels,
      pollMs: config.sso.registryPollMs,
      sessionsOutOfReach: config.sessionStore.kind === 'memory',
      probe: (id) => parts.probe(id),
      out,
    },
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

    // With an OTEL_* variable a command run here is traced as the service is (its use case, the
    // store's calls): the SDK starts before the store's drivers load, and what it made is sent
    // before the command answers. Otherwise nothing of OpenTelemetry is loaded.
    const tracing = await import('../boot/tracing.js');
    await tracing.startTracingIfWanted(io.env);
    // The service's container: the same use cases, and the sessions a command ends are logged as
    // the service logs its own (on standard error).
    const { openCommandParts } = await import('../boot/command-parts.js');
    const parts = await openCommandParts(config, lineWriter(io.stderr));
    try {
      const note = argv[0] === 'migrate' ? undefined : parts.applied;
      for (const name of note ?? []) io.stderr.write(`note: applied migration ${name}\n`);
      await commandPlan.run(contextOver(parts, io), password, secrets);
    } finally {
      await parts.close();
      // A collector that does not answer must not hold the command: a second, no more.
      await tracing.flushTracing(1000);
    }
    return EXIT_OK;
  } catch (error) {
    return report(error, io);
  }
}

/**
 * Runs a command line another process sent to the running service (admin-socket-server.ts):
 * the same plan, over the parts of the service's own container, with what the command read (its
 * password or secret, its file) sent along. The service's store stays open; its configuration
 * applies.
 */
export async function runForwarded(
  parts: CommandParts,
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
    await commandPlan.run(contextOver({ ...parts, applied: [] }, io), request.secret, request.secrets);
    return EXIT_OK;
  } catch (error) {
    return report(error, io);
  }
}
