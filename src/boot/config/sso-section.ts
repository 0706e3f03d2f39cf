import { z } from 'zod';
import {
  acrValuesFaults,
  BUILT_IN_INTERPRETER,
  ID_TOKEN_ALGORITHMS,
} from '../../domain/sso/provider-registration.js';
import { bool, commaList, type Environment, int, url } from './variables.js';

const levels = commaList.pipe(
  z.array(
    z
      .string()
      .regex(/^(0|4|8|12|16)$/, 'each level must be one of 0, 4, 8, 12, 16')
      .transform(Number),
  ),
);

/** Single sign-on: the environment's provider, the interpreters, and the key sealing secrets. */
export const ssoVariables = z.object({
  OIDC_ISSUER: url.optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_CLIENT_AUTH: z
    .enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt'])
    .default('client_secret_basic'),
  OIDC_PRIVATE_KEY_JWK: z.string().min(1).optional(),
  OIDC_REDIRECT_URIS: commaList.pipe(z.array(url)).default([]),
  OIDC_TIMEOUT_MS: int(100, 120_000).default(5000),
  // At most 10 s: a registry change (a disabled provider) must reach every instance within 10 s.
  SSO_REGISTRY_POLL_MS: int(100, 10_000).default(5000),
  OIDC_ID_TOKEN_ALG: z
    .enum(ID_TOKEN_ALGORITHMS, { message: `must be one of ${ID_TOKEN_ALGORITHMS.join(', ')}` })
    .default('RS256'),
  OIDC_ALLOW_INSECURE_HTTP: bool.default(false),
  /** Origins besides each issuer's own that its discovered endpoints may use (every provider). */
  OIDC_ENDPOINT_ORIGINS: commaList.pipe(z.array(url)).default([]),
  OIDC_REQUIRE_PKCE: bool.default(false),
  /** The environment's provider must vouch for a second factor (contract 3b). */
  OIDC_REQUIRE_MFA: bool.default(false),
  /** `acr` values of the environment's provider that count as a second factor. */
  OIDC_ACR_VALUES: commaList.default([]),
  SSO_TOKEN_INTERPRETER: z.string().min(1).default(BUILT_IN_INTERPRETER),
  SSO_USERNAME_CLAIM: z.string().min(1).default('preferred_username'),
  SSO_GROUP_CLAIM: z.string().min(1).default('groups'),
  SSO_USER_LEVELS: levels.default([8]),
  /** `name=module specifier` pairs that registered providers may name (contract 6a). */
  SSO_INTERPRETERS: commaList.default([]),
  TOKEN_ENCRYPTION_KEY: z.string().min(1).optional(),
  /** Former keys, comma-separated: they still open what they sealed, but seal nothing new. */
  TOKEN_ENCRYPTION_KEYS_PREVIOUS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean),
    ),
});

type SsoVariables = z.infer<typeof ssoVariables>;

export interface SsoConfig {
  oidc: {
    issuer: string;
    clientId: string;
    clientSecret: string | undefined;
    clientAuth: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
    privateKeyJwk: string | undefined;
    redirectUris: string[];
    timeoutMs: number;
    /** The one algorithm the provider's ID tokens and logout tokens may be signed with. */
    idTokenAlg: SsoVariables['OIDC_ID_TOKEN_ALG'];
    allowInsecureHttp: boolean;
    /** Refuse an SSO login without a `code_verifier` (recommended). */
    requirePkce: boolean;
    /** OIDC_REQUIRE_MFA: refuse an ID token that vouches for no second factor. */
    requireMfa: boolean;
    /** OIDC_ACR_VALUES: `acr` values that count as a second factor. */
    acrValues: string[];
  } | null;
  sso: {
    interpreter: string;
    usernameClaim: string;
    groupClaim: string;
    userLevels: number[];
    /**
     * SSO_INTERPRETERS: the interpreter modules registered providers may name, by name. A Map, so
     * a name read from the database (`constructor`, `__proto__`) finds only what was configured.
     */
    interpreters: ReadonlyMap<string, string>;
    /** Deployment-wide, for every provider (OIDC_TIMEOUT_MS, OIDC_ALLOW_INSECURE_HTTP). */
    providerTimeoutMs: number;
    allowInsecureHttp: boolean;
    /** OIDC_ENDPOINT_ORIGINS: where discovered endpoints may be besides the issuer's origin. */
    endpointOrigins: readonly string[];
    /** How often each instance asks whether the provider registry changed. */
    registryPollMs: number;
  };
  tokenEncryptionKey: string | undefined;
  /** Keys from before a rotation: opened, never used to seal. */
  tokenEncryptionKeysPrevious: string[];
  /**
   * A customer interpreter package's own settings: every `SSO_INTERPRETER_<NAME>` variable, as
   * `<NAME>`. Never the rest of the environment: the database URL, client secret and encryption
   * keys are none of a claims mapper's business.
   */
  interpreterSettings: Readonly<Record<string, string>>;
}

/** Names an operator gives interpreters in SSO_INTERPRETERS; `claims` is the built-in one's. */
const INTERPRETER_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The interpreter names a registered provider may take here: the built-in one and SSO_INTERPRETERS'. */
export function allowedInterpreterNames(config: Pick<SsoConfig, 'sso'>): string[] {
  return [BUILT_IN_INTERPRETER, ...config.sso.interpreters.keys()];
}

function interpreterMapProblems(pairs: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    const name = separator > 0 ? pair.slice(0, separator).trim() : '';
    const specifier = separator > 0 ? pair.slice(separator + 1).trim() : '';
    if (!INTERPRETER_NAME.test(name) || specifier === '') {
      problems.push(
        `SSO_INTERPRETERS: ${JSON.stringify(pair)} is not name=module (name: a-z, 0-9, "-", "_")`,
      );
    } else if (name === BUILT_IN_INTERPRETER) {
      problems.push(`SSO_INTERPRETERS: "${BUILT_IN_INTERPRETER}" is the built-in interpreter's name`);
    } else if (seen.has(name)) {
      problems.push(`SSO_INTERPRETERS: ${JSON.stringify(name)} is given twice`);
    }
    seen.add(name);
  }
  return problems;
}

function interpreterMap(pairs: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    map.set(pair.slice(0, separator).trim(), pair.slice(separator + 1).trim());
  }
  return map;
}

/** The prefix of the variables handed to a customer interpreter package, without it. */
export const INTERPRETER_SETTING_PREFIX = 'SSO_INTERPRETER_';

function interpreterSettingsOf(environment: Environment): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (
      name.startsWith(INTERPRETER_SETTING_PREFIX) &&
      name.length > INTERPRETER_SETTING_PREFIX.length &&
      value !== undefined
    ) {
      settings[name.slice(INTERPRETER_SETTING_PREFIX.length)] = value;
    }
  }
  return settings;
}

/** The environment's provider: both of issuer and client or neither, and what its choices need. */
function providerProblems(env: SsoVariables): string[] {
  const problems: string[] = [];
  const oidcSet = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID].filter(Boolean).length;
  if (oidcSet === 1) problems.push('OIDC_ISSUER and OIDC_CLIENT_ID: set both, or neither to turn SSO off');
  for (const fault of acrValuesFaults(env.OIDC_ACR_VALUES)) problems.push(`OIDC_ACR_VALUES: ${fault}`);
  if (!env.OIDC_ISSUER) return problems;
  // URL parsing lower-cases the scheme, so `HTTP://` cannot slip past the check.
  const issuerProtocol = new URL(env.OIDC_ISSUER).protocol;
  if (issuerProtocol === 'http:' && !env.OIDC_ALLOW_INSECURE_HTTP) {
    problems.push('OIDC_ISSUER: an http:// issuer needs OIDC_ALLOW_INSECURE_HTTP=true (development only)');
  } else if (issuerProtocol !== 'http:' && issuerProtocol !== 'https:') {
    problems.push('OIDC_ISSUER: must be an https:// URL');
  }
  if (env.OIDC_REDIRECT_URIS.length === 0)
    problems.push('OIDC_REDIRECT_URIS: required when OIDC_ISSUER is set');
  if (env.OIDC_CLIENT_AUTH === 'private_key_jwt' && !env.OIDC_PRIVATE_KEY_JWK) {
    problems.push('OIDC_PRIVATE_KEY_JWK: required when OIDC_CLIENT_AUTH=private_key_jwt');
  }
  if (env.OIDC_PRIVATE_KEY_JWK) {
    try {
      const jwk = JSON.parse(env.OIDC_PRIVATE_KEY_JWK) as unknown;
      if (!jwk || typeof jwk !== 'object' || !('d' in jwk)) throw new Error('not a private JWK');
    } catch {
      problems.push('OIDC_PRIVATE_KEY_JWK: must be a private key as a JSON Web Key (JSON object with "d")');
    }
  }
  if (env.OIDC_CLIENT_AUTH !== 'private_key_jwt' && !env.OIDC_CLIENT_SECRET) {
    problems.push(`OIDC_CLIENT_SECRET: required when OIDC_CLIENT_AUTH=${env.OIDC_CLIENT_AUTH}`);
  }
  return problems;
}

function keyProblems(env: SsoVariables): string[] {
  const problems: string[] = [];
  if (env.TOKEN_ENCRYPTION_KEY && Buffer.from(env.TOKEN_ENCRYPTION_KEY, 'base64').length !== 32) {
    problems.push('TOKEN_ENCRYPTION_KEY: must be 32 bytes, base64-encoded (openssl rand -base64 32)');
  }
  if (env.TOKEN_ENCRYPTION_KEYS_PREVIOUS.some((key) => Buffer.from(key, 'base64').length !== 32)) {
    problems.push(
      'TOKEN_ENCRYPTION_KEYS_PREVIOUS: each key must be 32 bytes, base64-encoded, comma-separated',
    );
  }
  if (env.TOKEN_ENCRYPTION_KEYS_PREVIOUS.length > 0 && !env.TOKEN_ENCRYPTION_KEY) {
    problems.push('TOKEN_ENCRYPTION_KEYS_PREVIOUS: needs TOKEN_ENCRYPTION_KEY (the key that seals)');
  }
  return problems;
}

export function ssoSection(env: SsoVariables, environment: Environment) {
  return {
    problems: [
      ...providerProblems(env),
      ...interpreterMapProblems(env.SSO_INTERPRETERS),
      ...keyProblems(env),
    ],
    build: (): SsoConfig => ({
      oidc:
        env.OIDC_ISSUER && env.OIDC_CLIENT_ID
          ? {
              issuer: env.OIDC_ISSUER,
              clientId: env.OIDC_CLIENT_ID,
              clientSecret: env.OIDC_CLIENT_SECRET,
              clientAuth: env.OIDC_CLIENT_AUTH,
              privateKeyJwk: env.OIDC_PRIVATE_KEY_JWK,
              redirectUris: env.OIDC_REDIRECT_URIS,
              timeoutMs: env.OIDC_TIMEOUT_MS,
              idTokenAlg: env.OIDC_ID_TOKEN_ALG,
              allowInsecureHttp: env.OIDC_ALLOW_INSECURE_HTTP,
              requirePkce: env.OIDC_REQUIRE_PKCE,
              requireMfa: env.OIDC_REQUIRE_MFA,
              acrValues: env.OIDC_ACR_VALUES,
            }
          : null,
      sso: {
        interpreter: env.SSO_TOKEN_INTERPRETER,
        usernameClaim: env.SSO_USERNAME_CLAIM,
        groupClaim: env.SSO_GROUP_CLAIM,
        userLevels: env.SSO_USER_LEVELS,
        interpreters: interpreterMap(env.SSO_INTERPRETERS),
        providerTimeoutMs: env.OIDC_TIMEOUT_MS,
        allowInsecureHttp: env.OIDC_ALLOW_INSECURE_HTTP,
        endpointOrigins: env.OIDC_ENDPOINT_ORIGINS.map((origin) => new URL(origin).origin),
        registryPollMs: env.SSO_REGISTRY_POLL_MS,
      },
      tokenEncryptionKey: env.TOKEN_ENCRYPTION_KEY,
      tokenEncryptionKeysPrevious: env.TOKEN_ENCRYPTION_KEYS_PREVIOUS,
      interpreterSettings: interpreterSettingsOf(environment),
    }),
  };
}
