import type { AdminProviders } from '../application/admin/admin-providers.js';
import {
  BUILT_IN_INTERPRETER,
  CLIENT_AUTH_METHODS,
  type ClientAuthMethod,
  ID_TOKEN_ALGORITHMS,
  type IdTokenAlgorithm,
  isSsoAssignableLevel,
  type ProviderSettings,
  type ProviderSummary,
} from '../domain/sso/provider-registration.js';
import type { ProviderChange } from '../domain/sso/provider-registry.port.js';
import { escapeForDisplay } from '../domain/user/username.js';
import {
  oneOf,
  onlyId,
  parseAcrValues,
  parseLevels,
  parseSettingPairs,
  parseSettings,
  requiredText,
  requireOnce,
  secretRequest,
  secretsFrom,
  settingNamesFromStdin,
  splitStdin,
  stdinLabels,
} from './provider-options.js';
import { UsageError } from './usage.js';

/** What the provider command needs of the CLI's context (a subset of cli.ts's). */
export interface ProviderCommandContext {
  providers: AdminProviders;
  /** SSO_USER_LEVELS: the levels a provider admits when `--levels` is not given. */
  defaultLevels: readonly number[];
  /** SSO_REGISTRY_POLL_MS: how soon running instances apply a change. */
  pollMs: number;
  /**
   * SESSION_STORE=memory: the sessions live in the service's process, so this command ends none
   * of them and says so instead of a count (each is refused at its next check there).
   */
  sessionsOutOfReach: boolean;
  /** Tells whether a provider's discovery and keys can be fetched (`provider test`). */
  probe(id: string): Promise<ProbeReport>;
  out(line: string): void;
}

export interface ProbeReport {
  ok: boolean;
  lines: string[];
}

export interface ProviderPlan {
  /**
   * What standard input holds, one line each, in this order: the client secret or private key
   * (when asked for), then each `--setting-stdin` value in the order the names were given.
   */
  stdin: readonly string[];
  run(context: ProviderCommandContext, stdinLines: readonly string[]): Promise<void>;
}

const clean = escapeForDisplay;

function planAdd(args: readonly string[]): ProviderPlan {
  const { values, positionals } = parseSettings(args);
  if (positionals.length !== 1) throw new UsageError('provider add: expected ID');
  const id = positionals[0]!;
  if (values['no-require-pkce'])
    throw new UsageError('--no-require-pkce is for update (PKCE is optional by default)');
  if (values['no-require-mfa'])
    throw new UsageError('--no-require-mfa is for update (a second factor is not required by default)');
  const acrValues = parseAcrValues(values['acr-values']) ?? [];
  const issuer = requiredText(values, 'issuer');
  const clientId = requiredText(values, 'client-id');
  const redirectUris = requireOnce(values, 'redirect-uri');
  const tenants = requireOnce(values, 'tenant');
  const clientAuth =
    oneOf<ClientAuthMethod>('client-auth', values['client-auth'], CLIENT_AUTH_METHODS) ??
    'client_secret_basic';
  const idTokenAlg =
    oneOf<IdTokenAlgorithm>('id-token-alg', values['id-token-alg'], ID_TOKEN_ALGORITHMS) ?? 'RS256';
  const levels = parseLevels(values.levels);
  const settings = parseSettingPairs(values.setting);
  const fromStdin = settingNamesFromStdin(values, settings);
  const secret = secretRequest(values, id, true);
  return {
    stdin: stdinLabels(secret, fromStdin, id),
    async run(context, lines) {
      const read = splitStdin(secret, fromStdin, lines);
      const registration: Omit<ProviderSettings, 'enabled'> = {
        id,
        issuer,
        clientId,
        clientAuth,
        redirectUris,
        tenants,
        interpreter: values.interpreter ?? BUILT_IN_INTERPRETER,
        ...(values['username-claim'] ? { usernameClaim: values['username-claim'] } : {}),
        ...(values['group-claim'] ? { groupClaim: values['group-claim'] } : {}),
        // SSO_USER_LEVELS may hold the system administrator's level; a provider may not grant it.
        levels: levels ?? context.defaultLevels.filter(isSsoAssignableLevel),
        requirePkce: values['require-pkce'] === true,
        idTokenAlg,
        requireMfa: values['require-mfa'] === true,
        acrValues,
      };
      const summary = await context.providers.add(registration, {
        settings: {},
        ...secretsFrom(secret, read.secretValue, { ...settings, ...read.settings }),
      });
      context.out(`added provider ${quoted(summary.id)}`);
      describe(summary, context);
    },
  };
}

function planUpdate(args: readonly string[]): ProviderPlan {
  const { values, positionals } = parseSettings(args);
  if (positionals.length !== 1) throw new UsageError('provider update: expected ID');
  const id = positionals[0]!;
  if (values['require-pkce'] && values['no-require-pkce']) {
    throw new UsageError('give --require-pkce or --no-require-pkce, not both');
  }
  if (values['require-mfa'] && values['no-require-mfa']) {
    throw new UsageError('give --require-mfa or --no-require-mfa, not both');
  }
  const acrValues = parseAcrValues(values['acr-values']);
  const levels = parseLevels(values.levels);
  const settingPairs = parseSettingPairs(values.setting);
  const fromStdin = settingNamesFromStdin(values, settingPairs);
  const secret = secretRequest(values, id, false);
  const change: ProviderChange['settings'] = {
    ...(values.issuer !== undefined ? { issuer: values.issuer } : {}),
    ...(values['client-id'] !== undefined ? { clientId: values['client-id'] } : {}),
    ...(values['client-auth'] !== undefined
      ? { clientAuth: oneOf<ClientAuthMethod>('client-auth', values['client-auth'], CLIENT_AUTH_METHODS)! }
      : {}),
    ...(values['redirect-uri'] !== undefined ? { redirectUris: values['redirect-uri'] } : {}),
    ...(values.tenant !== undefined ? { tenants: values.tenant } : {}),
    ...(values.interpreter !== undefined ? { interpreter: values.interpreter } : {}),
    ...(values['username-claim'] !== undefined ? { usernameClaim: values['username-claim'] } : {}),
    ...(values['group-claim'] !== undefined ? { groupClaim: values['group-claim'] } : {}),
    ...(levels !== undefined ? { levels } : {}),
    ...(values['require-pkce'] ? { requirePkce: true } : {}),
    ...(values['no-require-pkce'] ? { requirePkce: false } : {}),
    ...(values['require-mfa'] ? { requireMfa: true } : {}),
    ...(values['no-require-mfa'] ? { requireMfa: false } : {}),
    ...(acrValues !== undefined ? { acrValues } : {}),
    ...(values['id-token-alg'] !== undefined
      ? { idTokenAlg: oneOf<IdTokenAlgorithm>('id-token-alg', values['id-token-alg'], ID_TOKEN_ALGORITHMS)! }
      : {}),
  };
  if (
    Object.keys(change).length === 0 &&
    secret === undefined &&
    settingPairs === undefined &&
    fromStdin.length === 0
  ) {
    throw new UsageError('provider update: give at least one option to change');
  }
  return {
    stdin: stdinLabels(secret, fromStdin, id),
    async run(context, lines) {
      const read = splitStdin(secret, fromStdin, lines);
      const settings =
        settingPairs === undefined && fromStdin.length === 0
          ? undefined
          : { ...settingPairs, ...read.settings };
      const { provider: summary, sessionsEnded } = await context.providers.update(id, {
        settings: change,
        secrets: secretsFrom(secret, read.secretValue, settings),
      });
      context.out(`updated provider ${quoted(summary.id)}`);
      if (change.tenants !== undefined || change.levels !== undefined) {
        context.out(ended(sessionsEnded, context, ' of users it no longer admits'));
      }
      describe(summary, context);
    },
  };
}

function sessions(count: number): string {
  return `${count} session${count === 1 ? '' : 's'}`;
}

/** How many sessions the command ended, or why it could not end any. */
function ended(count: number, context: ProviderCommandContext, whose = ''): string {
  return context.sessionsOutOfReach
    ? `its sessions${whose} live in the service process (SESSION_STORE=memory), out of this command's reach: each ends at its next check`
    : `ended ${sessions(count)}${whose}`;
}

function quoted(value: string): string {
  return `"${clean(value)}"`;
}

/**
 * Every setting of a provider; of its secrets, only whether they are set and the setting names;
 * then why this command's configuration could not load it, if anything (`show`).
 */
function describe(
  summary: ProviderSummary,
  context: ProviderCommandContext,
  loadFaults: readonly string[] = [],
): void {
  const secret = !summary.secretsReadable
    ? 'secrets sealed under another key'
    : summary.clientAuth === 'private_key_jwt'
      ? summary.hasPrivateKey
        ? 'private key set'
        : 'no private key'
      : summary.hasClientSecret
        ? 'secret set'
        : 'no secret';
  const claims = [
    summary.usernameClaim ? `username claim ${quoted(summary.usernameClaim)}` : null,
    summary.groupClaim ? `group claim ${quoted(summary.groupClaim)}` : null,
  ].filter((part): part is string => part !== null);
  context.out(`  ${summary.enabled ? 'enabled' : 'disabled'}`);
  context.out(`  issuer ${clean(summary.issuer)}`);
  context.out(`  client id ${quoted(summary.clientId)} (${summary.clientAuth}, ${secret})`);
  context.out(`  redirect URIs ${summary.redirectUris.map(clean).join(' ')}`);
  context.out(`  tenants ${summary.tenants.map(quoted).join(', ')}`);
  context.out(
    `  interpreter ${quoted(summary.interpreter)}${claims.length > 0 ? ` (${claims.join(', ')})` : ''}`,
  );
  context.out(
    `  settings ${summary.settingNames.length > 0 ? summary.settingNames.map(quoted).join(', ') : '(none)'}`,
  );
  context.out(`  levels ${summary.levels.join(', ')}; PKCE ${summary.requirePkce ? 'required' : 'optional'}`);
  context.out(`  ID token algorithm ${summary.idTokenAlg}`);
  context.out(
    `  second factor ${summary.requireMfa ? 'required' : 'not required'}; ${describeAcrValues(summary.acrValues)}`,
  );
  for (const fault of loadFaults) context.out(`  ${cannotLoad(fault)}`);
}

function describeAcrValues(values: readonly string[]): string {
  return values.length === 0 ? 'no acr values' : `acr values ${values.map(quoted).join(', ')}`;
}

/** Why this command's configuration (its key, SSO_INTERPRETERS, OIDC_REDIRECT_URIS) could not load it. */
function cannotLoad(fault: string): string {
  return `cannot be loaded with this configuration: ${clean(fault)}`;
}

/** `gatehouse provider add | update | list | show | test | disable | enable | remove`. */
export function planProvider(args: readonly string[]): ProviderPlan {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return planAdd(rest);
    case 'update':
      return planUpdate(rest);
    case 'list':
      onlyNothing(rest);
      return {
        stdin: [],
        async run(context) {
          const providers = await context.providers.list();
          context.out(`${providers.length} provider${providers.length === 1 ? '' : 's'}`);
          for (const provider of providers) {
            context.out(
              `  ${quoted(provider.id)}  ${provider.enabled ? 'enabled' : 'disabled'}  ${clean(provider.issuer)}  ` +
                `tenants ${provider.tenants.map(quoted).join(', ')}` +
                (provider.requireMfa ? '  second factor required' : ''),
            );
            for (const fault of provider.loadFaults) context.out(`    ${cannotLoad(fault)}`);
          }
        },
      };
    case 'show': {
      const id = onlyId(rest, 'show');
      return {
        stdin: [],
        async run(context) {
          const view = await context.providers.show(id);
          context.out(`provider ${quoted(view.id)}`);
          describe(view, context, view.loadFaults);
        },
      };
    }
    case 'test': {
      const id = onlyId(rest, 'test');
      return {
        stdin: [],
        async run(context) {
          await context.providers.show(id);
          const report = await context.probe(id);
          // The lines carry what the provider sent (its issuer, algorithm names, error texts):
          // escaped, so no control character or escape sequence reaches the terminal.
          for (const line of report.lines) context.out(clean(line));
          if (!report.ok) throw new ProbeFailed(id);
        },
      };
    }
    case 'disable':
    case 'enable': {
      const id = onlyId(rest, sub);
      return {
        stdin: [],
        async run(context) {
          // What the change does, and by when: each instance applies it at its next registry poll;
          // the sessions ended here are gone for every instance at once.
          if (sub === 'disable') {
            const { provider, sessionsEnded } = await context.providers.disable(id);
            context.out(
              `disabled provider ${quoted(provider.id)}: no new logins through it on every instance within ${context.pollMs} ms; ${ended(sessionsEnded, context)}`,
            );
          } else {
            const summary = await context.providers.enable(id);
            context.out(
              `enabled provider ${quoted(summary.id)}: its logins resume on every instance within ${context.pollMs} ms; sessions ended before stay ended`,
            );
            // Enabled but not loadable with this configuration: it will serve no login; say why now.
            for (const fault of (await context.providers.show(id)).loadFaults)
              context.out(`  ${cannotLoad(fault)}`);
          }
        },
      };
    }
    case 'remove': {
      const id = onlyId(rest, 'remove');
      return {
        stdin: [],
        async run(context) {
          const { sessionsEnded } = await context.providers.remove(id);
          context.out(
            `removed provider ${quoted(id)}; ${ended(sessionsEnded, context)}; its users' provider bindings are forgotten`,
          );
        },
      };
    }
    default:
      throw new UsageError(
        sub === undefined
          ? 'provider: a subcommand is required (add, update, list, show, test, disable, enable, remove)'
          : `provider: unknown subcommand ${quoted(sub)} (add, update, list, show, test, disable, enable, remove)`,
      );
  }
}

function onlyNothing(args: readonly string[]): void {
  if (args.length > 0) throw new UsageError(`expected no argument, got ${args.length} argument(s)`);
}

/** `provider test` found a fault: the lines above say which; the exit status is non-zero. */
export class ProbeFailed extends Error {
  constructor(readonly providerId: string) {
    super(`provider ${providerId} did not pass its test`);
    this.name = 'ProbeFailed';
  }
}
