import { z } from 'zod';
import { type HttpConfig, httpSection, httpVariables } from './http-section.js';
import { type MfaConfig, mfaSection, mfaVariables } from './mfa-section.js';
import { type OperationsConfig, operationsSection, operationsVariables } from './operations-section.js';
import { type PasswordConfig, passwordSection, passwordVariables } from './password-section.js';
import { type SessionConfig, sessionSection, sessionVariables } from './session-section.js';
import { type SsoConfig, ssoSection, ssoVariables } from './sso-section.js';
import { type StorageConfig, storageSection, storageVariables } from './storage-section.js';
import type { Environment } from './variables.js';

// Kept importable from here, where the container modules have always found them.
export { allowedInterpreterNames, INTERPRETER_SETTING_PREFIX } from './sso-section.js';
export { type SessionStoreName, sessionStoreName } from './storage-section.js';

/**
 * Every environment variable the service reads, with its default (contract section 7): one zod
 * object per section, each in its own file with that section's cross-checks.
 */
const envSchema = z.object({
  ...httpVariables.shape,
  ...storageVariables.shape,
  ...sessionVariables.shape,
  ...passwordVariables.shape,
  ...ssoVariables.shape,
  ...operationsVariables.shape,
  ...mfaVariables.shape,
});

export type Env = z.infer<typeof envSchema>;

/** The service's configuration: the parts the sections build, parsed once and frozen. */
export interface Config
  extends HttpConfig,
    StorageConfig,
    SessionConfig,
    PasswordConfig,
    SsoConfig,
    OperationsConfig,
    MfaConfig {}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Parses the environment once; a bad value throws ConfigError naming the variable. Never echoes secrets. */
export function loadConfig(environment: Environment = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = environment[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const parsed = envSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  const env = parsed.data;
  const sections = [
    sessionSection(env),
    httpSection(env),
    ssoSection(env, environment),
    storageSection(env, environment),
    passwordSection(env),
    operationsSection(env),
    mfaSection(env),
  ] as const;
  const problems = sections.flatMap((section) => section.problems);
  if (problems.length > 0) throw new ConfigError(problems);
  const [session, http, sso, storage, password, operations, mfa] = sections;
  const config: Config = {
    ...http.build(),
    ...storage.build(),
    ...session.build(),
    ...password.build(),
    ...sso.build(),
    ...operations.build(),
    ...mfa.build(),
  };
  return deepFreeze(config);
}
