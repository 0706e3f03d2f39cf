import { DomainError, type FieldError } from '../shared/domain-error.js';
import type { PasswordStrengthEstimator } from './password-strength.port.js';

export interface PasswordPolicyOptions {
  minLength: number;
  maxLength: number;
  /** Lower-cased common passwords; a new password whose lower-case form is listed is refused. */
  commonPasswords: ReadonlySet<string>;
  /**
   * The strength check (ASVS 6.2.x): a new password whose estimated score is below `minScore` is
   * refused, with the estimator's reason.
   */
  strength?: { estimator: PasswordStrengthEstimator; minScore: number };
  /** Words every password is checked against besides the user's own: the service's name. */
  contextWords?: readonly string[];
}

/** Who the password is for: their username and names must not make it (ASVS 6.2.11). */
export interface PasswordContext {
  username?: string;
  otherWords?: readonly (string | null | undefined)[];
}

/**
 * OWASP ASVS 6.2: a minimum length, a generous maximum, no composition rules, no truncation, no
 * password from a list of common ones, and (with a strength estimator) none that is easy to guess
 * for any reason: common at any length, built on the username or the service's name, repeated or
 * sequential characters, keyboard walks, dates. Length counts Unicode code points.
 */
export class PasswordPolicy {
  constructor(private readonly options: PasswordPolicyOptions) {}

  violations(password: string, context: PasswordContext = {}): FieldError[] {
    const length = [...password].length;
    const errors: FieldError[] = [];
    if (length < this.options.minLength) {
      errors.push({
        path: 'new_password',
        message: `must have at least ${this.options.minLength} characters`,
      });
    }
    if (length > this.options.maxLength) {
      errors.push({
        path: 'new_password',
        message: `must have at most ${this.options.maxLength} characters`,
      });
    }
    const lower = password.toLowerCase();
    if (this.options.commonPasswords.has(lower)) {
      errors.push({ path: 'new_password', message: 'is too common' });
    }
    if (context.username && lower === context.username.toLowerCase()) {
      errors.push({ path: 'new_password', message: 'must not be the username' });
    }
    const { strength } = this.options;
    if (strength && errors.length === 0) {
      const words = [
        ...(this.options.contextWords ?? []),
        ...(context.username ? [context.username] : []),
        ...(context.otherWords ?? []).filter((word): word is string => typeof word === 'string'),
      ];
      const estimate = strength.estimator.estimate(password, words);
      if (estimate.score < strength.minScore) {
        errors.push({
          path: 'new_password',
          message: estimate.warning
            ? `is too easy to guess: ${estimate.warning} Add more words that are less common.`
            : 'is too easy to guess. Add more words that are less common.',
        });
      }
    }
    return errors;
  }

  assertAcceptable(password: string, context: PasswordContext = {}): void {
    const errors = this.violations(password, context);
    if (errors.length > 0) {
      throw new DomainError('PASSWORD_POLICY', 'The new password does not meet the password policy.', {
        errors,
      });
    }
  }
}
