import { loadCommonPasswords } from '../adapters/password/common-passwords.js';
import { ZxcvbnStrengthEstimator } from '../adapters/password/zxcvbn-strength-estimator.js';
import { PasswordPolicy } from '../domain/password/password-policy.js';
import type { Config } from './config/config.js';

/** The words no password may be built on, whoever it is for. */
const SERVICE_WORDS = ['gatehouse'];

/** The password policy of the configuration: the service's and the CLI's are the same. */
export function passwordPolicyFor(config: Config): PasswordPolicy {
  return new PasswordPolicy({
    minLength: config.password.minLength,
    maxLength: config.password.maxLength,
    commonPasswords: loadCommonPasswords(),
    contextWords: SERVICE_WORDS,
    ...(config.password.minScore > 0
      ? { strength: { estimator: new ZxcvbnStrengthEstimator(), minScore: config.password.minScore } }
      : {}),
  });
}
