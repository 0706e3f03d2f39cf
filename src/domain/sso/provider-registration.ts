import type { FieldError } from '../shared/domain-error.js';

/** How a registered provider authenticates this service at its token endpoint. */
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** The signing algorithms an operator may expect of a provider (one per provider). */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export type IdTokenAlgorithm = (typeof ID_TOKEN_ALGORITHMS)[number];

/** User levels single sign-on may ever admit: never the system administrator (16). */
export const SSO_ASSIGNABLE_LEVELS = [0, 4, 8, 12] as const;

export function isSsoAssignableLevel(level: number): boolean {
  return (SSO_ASSIGNABLE_LEVELS as readonly number[]).includes(level);
}

/** The environment's provider (`OIDC_*`) is registered under this id; no registry entry may take it. */
export const ENVIRONMENT_PROVIDER_ID = 'default';

/**
 * The interpreter shipped with Gatehouse (claims to username and groups, by claim names): the
 * default of SSO_TOKEN_INTERPRETER and of `provider add`, a name no SSO_INTERPRETERS entry may take.
 */
export const BUILT_IN_INTERPRETER = 'claims';

const PROVIDER_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const INTERPRETER_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const SETTING_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/**
 * A customer's OpenID provider as an operator registers it: everything but its secrets, which
 * travel apart (`ProviderSecrets`) so that no listing, log line or audit record can carry them.
 */
export interface ProviderSettings {
  id: string;
  issuer: string;
  clientId: string;
  clientAuth: ClientAuthMethod;
  /** Exact `redirect_uri` values (query included); each belongs to one provider only. */
  redirectUris: readonly string[];
  /** The tenants whose users this provider may log in. */
  tenants: readonly string[];
  /** A name from SSO_INTERPRETERS, or the built-in `claims` (BUILT_IN_INTERPRETER). */
  interpreter: string;
  usernameClaim?: string;
  groupClaim?: string;
  levels: readonly number[];
  requirePkce: boolean;
  idTokenAlg: IdTokenAlgorithm;
  /** Its ID tokens must vouch for a second factor (`amr`, or an `acr` of `acrValues`; contract 3b). */
  requireMfa: boolean;
  /** `acr` values that count as a second factor (`--acr-values a,b`); empty: none. */
  acrValues: readonly string[];
  enabled: boolean;
}

/** What must never be shown: kept encrypted at rest, handed only to the provider's adapters. */
export interface ProviderSecrets {
  clientSecret?: string;
  /** A private JWK as JSON text, for `private_key_jwt`. */
  privateKeyJwk?: string;
  /** The interpreter's own settings (`--setting NAME=VALUE`): values may be secrets too. */
  settings: Readonly<Record<string, string>>;
}

export interface RegisteredProvider extends ProviderSettings {
  /**
   * Null when they do not open with this process's TOKEN_ENCRYPTION_KEY (nor a previous key):
   * the row was sealed under another key. Its settings are still known, so it can be listed,
   * shown, disabled and removed; it cannot be served or updated until the key matches.
   */
  secrets: ProviderSecrets | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * When it was added, or last enabled after a disable: an SSO session made through it before
   * then is never served (`sessionPredatesProvider`).
   */
  enabledSince: Date;
}

/**
 * Whether an SSO session was made before its provider's current registration or enable: then a
 * disable, a remove or a re-add came between, which ended it (or should have: a store that lost
 * the deletion, a login in flight meanwhile), so it must not come back to life.
 */
export function sessionPredatesProvider(sessionCreatedAt: Date, enabledSince: Date): boolean {
  return sessionCreatedAt.getTime() < enabledSince.getTime();
}

/** A provider as it may be shown: its settings and the names, never the values, of its secrets. */
export interface ProviderSummary extends ProviderSettings {
  /** False when the secrets do not open with this process's key (then none is said to be set). */
  secretsReadable: boolean;
  hasClientSecret: boolean;
  hasPrivateKey: boolean;
  settingNames: readonly string[];
  createdAt: Date;
  updatedAt: Date;
}

export function summarizeProvider(provider: RegisteredProvider): ProviderSummary {
  const { secrets, ...settings } = provider;
  return {
    ...settings,
    secretsReadable: secrets !== null,
    hasClientSecret: secrets?.clientSecret !== undefined,
    hasPrivateKey: secrets?.privateKeyJwk !== undefined,
    settingNames: Object.keys(secrets?.settings ?? {}).sort(),
  };
}

function isAbsoluteWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '' && url.username === '';
  } catch {
    return false;
  }
}

/**
 * Why these settings and secrets cannot be registered (each fault names its option), or an empty
 * list. Checks what the values alone decide; uniqueness (of the id and of each redirect URI) and
 * whether the tenants and the interpreter exist are decided where they are kept.
 */
export function registrationFaults(settings: ProviderSettings, secrets: ProviderSecrets): FieldError[] {
  const faults: FieldError[] = [];
  const fault = (path: string, message: string) => faults.push({ path, message });
  if (!PROVIDER_ID.test(settings.id)) {
    fault(
      'id',
      'must be 1 to 63 characters: lower-case letters, digits and "-", starting with a letter or digit',
    );
  } else if (settings.id === ENVIRONMENT_PROVIDER_ID) {
    fault('id', `"${ENVIRONMENT_PROVIDER_ID}" is the provider of the environment (OIDC_*)`);
  }
  if (!isAbsoluteWebUrl(settings.issuer)) fault('issuer', 'must be an absolute http(s) URL');
  if (settings.clientId.length === 0 || settings.clientId.length > 255)
    fault('client-id', 'must be 1 to 255 characters');
  if (!CLIENT_AUTH_METHODS.includes(settings.clientAuth)) {
    fault('client-auth', `must be one of ${CLIENT_AUTH_METHODS.join(', ')}`);
  }
  if (settings.redirectUris.length === 0) fault('redirect-uri', 'at least one is required');
  for (const uri of settings.redirectUris) {
    if (!isAbsoluteWebUrl(uri))
      fault('redirect-uri', `${JSON.stringify(uri)} is not an absolute http(s) URL without a fragment`);
  }
  if (new Set(settings.redirectUris).size !== settings.redirectUris.length)
    fault('redirect-uri', 'is given twice');
  if (settings.tenants.length === 0) fault('tenant', 'at least one is required');
  if (new Set(settings.tenants).size !== settings.tenants.length) fault('tenant', 'is given twice');
  if (!INTERPRETER_NAME.test(settings.interpreter))
    fault('interpreter', `must be a name from SSO_INTERPRETERS or "${BUILT_IN_INTERPRETER}"`);
  if (settings.levels.length === 0) fault('levels', 'at least one user level is required');
  for (const level of settings.levels) {
    if (!isSsoAssignableLevel(level)) {
      fault(
        'levels',
        `${level} is not one of ${SSO_ASSIGNABLE_LEVELS.join(', ')} (system administrators never sign on through a customer's provider)`,
      );
    }
  }
  if (!ID_TOKEN_ALGORITHMS.includes(settings.idTokenAlg)) {
    fault('id-token-alg', `must be one of ${ID_TOKEN_ALGORITHMS.join(', ')}`);
  }
  for (const problem of acrValuesFaults(settings.acrValues)) fault('acr-values', problem);
  if (settings.clientAuth === 'private_key_jwt') {
    if (secrets.privateKeyJwk === undefined)
      fault('private-key-jwk-stdin', 'private_key_jwt needs a private key');
  } else if (secrets.clientSecret === undefined || secrets.clientSecret.length === 0) {
    fault('client-secret-stdin', `${settings.clientAuth} needs a client secret`);
  }
  for (const name of Object.keys(secrets.settings)) {
    if (!SETTING_NAME.test(name))
      fault('setting', `${JSON.stringify(name)} is not a setting name (letters, digits, "_")`);
  }
  return faults;
}

/** An `acr` value as a provider sends it: a URI or a short token; no comma, space or control character. */
const ACR_VALUE = /^[\x21-\x2b\x2d-\x7e]{1,200}$/;
export const MAX_ACR_VALUES = 10;

/**
 * What is wrong with a list of acr values (`--acr-values`, OIDC_ACR_VALUES), or nothing. Shared by
 * the command and the configuration, so both accept the same lists.
 */
export function acrValuesFaults(values: readonly string[]): string[] {
  const faults: string[] = [];
  if (values.length > MAX_ACR_VALUES) faults.push(`at most ${MAX_ACR_VALUES} values`);
  for (const value of values) {
    if (!ACR_VALUE.test(value))
      faults.push(
        `${JSON.stringify(value)} is not an acr value (1 to 200 printable characters, no comma or space)`,
      );
  }
  if (new Set(values).size !== values.length) faults.push('a value is given twice');
  return faults;
}
