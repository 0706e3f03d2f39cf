import { parseArgs } from 'node:util';
import { acrValuesFaults, type ProviderSecrets } from '../domain/sso/provider-registration.js';
import { quoted } from './command-line.js';
import { UsageError } from './usage.js';

/**
 * The options of `provider add` and `provider update`: the settings on the command line, the
 * secrets and interpreter settings on standard input, each checked before the store opens.
 */

/** One secret read from standard input before the store opens, and what it is for. */
export interface SecretRequest {
  kind: 'client-secret' | 'private-key-jwk';
  label: string;
}

export const SETTING_OPTIONS = {
  issuer: { type: 'string' },
  'client-id': { type: 'string' },
  'client-auth': { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  tenant: { type: 'string', multiple: true },
  interpreter: { type: 'string' },
  'username-claim': { type: 'string' },
  'group-claim': { type: 'string' },
  setting: { type: 'string', multiple: true },
  'setting-stdin': { type: 'string', multiple: true },
  levels: { type: 'string' },
  'require-pkce': { type: 'boolean' },
  'no-require-pkce': { type: 'boolean' },
  'require-mfa': { type: 'boolean' },
  'no-require-mfa': { type: 'boolean' },
  'acr-values': { type: 'string' },
  'id-token-alg': { type: 'string' },
  'client-secret-stdin': { type: 'boolean' },
  'private-key-jwk-stdin': { type: 'boolean' },
} as const;

export type SettingValues = ReturnType<typeof parseSettings>['values'];

export function parseSettings(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: SETTING_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function onlyId(args: readonly string[], command: string): string {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args: [...args], options: {}, strict: true, allowPositionals: true }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (positionals.length !== 1) throw new UsageError(`provider ${command}: expected ID`);
  return positionals[0]!;
}

export function oneOf<T extends string>(
  option: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${option} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

export function parseLevels(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const levels = value.split(',').map((item) => item.trim());
  if (levels.some((level) => !/^\d{1,2}$/.test(level))) {
    throw new UsageError('--levels must be a comma list of user levels, e.g. 8,12');
  }
  return levels.map(Number);
}

/**
 * `--acr-values a,b`: the `acr` values that count as a second factor; an empty value clears them
 * (update). Checked here as the configuration checks OIDC_ACR_VALUES (`acrValuesFaults`).
 */
export function parseAcrValues(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = value.trim() === '' ? [] : value.split(',').map((item) => item.trim());
  const faults = acrValuesFaults(values);
  if (faults.length > 0) throw new UsageError(`--acr-values: ${faults.join('; ')}`);
  return values;
}

export function parseSettingPairs(pairs: readonly string[] | undefined): Record<string, string> | undefined {
  if (pairs === undefined) return undefined;
  const settings: Record<string, string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator < 1) throw new UsageError('--setting must be NAME=VALUE');
    settings[pair.slice(0, separator)] = pair.slice(separator + 1);
  }
  return settings;
}

/**
 * The settings whose values come from standard input (`--setting-stdin NAME`), kept off the
 * command line (shell history, `ps`); each name once, and not also given by `--setting`.
 */
export function settingNamesFromStdin(
  values: SettingValues,
  onCommandLine: Record<string, string> | undefined,
): string[] {
  const names = values['setting-stdin'] ?? [];
  for (const [index, name] of names.entries()) {
    if (names.indexOf(name) !== index || (onCommandLine && Object.hasOwn(onCommandLine, name))) {
      throw new UsageError(`setting ${quoted(name)} is given twice (--setting, --setting-stdin)`);
    }
  }
  return names;
}

/** The lines standard input must hold, labelled for the prompt and for a refusal naming them. */
export function stdinLabels(secret: SecretRequest | undefined, settingNames: readonly string[], id: string) {
  return [
    ...(secret ? [secret.label] : []),
    ...settingNames.map((name) => `the setting ${name} of provider ${id}`),
  ];
}

/** The secret line and the `--setting-stdin` values, split from what standard input held. */
export function splitStdin(
  secret: SecretRequest | undefined,
  settingNames: readonly string[],
  lines: readonly string[],
): { secretValue: string | null; settings: Record<string, string> } {
  const rest = secret ? lines.slice(1) : lines;
  return {
    secretValue: secret ? (lines[0] ?? null) : null,
    settings: Object.fromEntries(settingNames.map((name, index) => [name, rest[index] ?? ''])),
  };
}

export function secretRequest(
  values: SettingValues,
  id: string,
  required: boolean,
): SecretRequest | undefined {
  const wantsSecret = values['client-secret-stdin'] === true;
  const wantsKey = values['private-key-jwk-stdin'] === true;
  if (wantsSecret && wantsKey) {
    throw new UsageError('give --client-secret-stdin or --private-key-jwk-stdin, not both');
  }
  if (wantsSecret) return { kind: 'client-secret', label: `the client secret of provider ${id}` };
  if (wantsKey) return { kind: 'private-key-jwk', label: `the private key (JWK) of provider ${id}` };
  if (required) {
    throw new UsageError(
      '--client-secret-stdin or --private-key-jwk-stdin is required (secrets are read from standard input)',
    );
  }
  return undefined;
}

export function secretsFrom(
  request: SecretRequest | undefined,
  secret: string | null,
  settings: Record<string, string> | undefined,
) {
  const secrets: Partial<ProviderSecrets> = {};
  if (request?.kind === 'client-secret' && secret !== null) secrets.clientSecret = secret;
  if (request?.kind === 'private-key-jwk' && secret !== null) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(secret);
    } catch {
      jwk = null;
    }
    if (!jwk || typeof jwk !== 'object' || !('d' in jwk)) {
      throw new UsageError(
        'the private key on standard input must be a private JSON Web Key (an object with "d")',
      );
    }
    secrets.privateKeyJwk = secret;
  }
  if (settings !== undefined) secrets.settings = settings;
  return secrets;
}

export function requiredText(values: SettingValues, option: 'issuer' | 'client-id'): string {
  const value = values[option];
  if (value === undefined || value === '') throw new UsageError(`--${option} is required`);
  return value;
}

export function requireOnce(values: SettingValues, option: 'redirect-uri' | 'tenant'): string[] {
  const list = values[option];
  if (!list || list.length === 0)
    throw new UsageError(`--${option} is required (repeat it for more than one)`);
  return list;
}
