import { DomainError, type FieldError } from '../shared/domain-error.js';

export interface PasswordPolicyOptions {
  minLength: number;
  maxLength: number;
  /** Lower-cased common passwords; a new password whose lower-case form is listed is refused. */
  commonPasswords: ReadonlySet<string>;
}

/**
 * OWASP ASVS 6.2: a minimum length, a generous maximum, no composition rules, no truncation,
 * and no password from a list of common ones. Length counts Unicode code points.
 */
export class PasswordPolicy {
  constructor(private readonly options: PasswordPolicyOptions) {}

  violations(password: string, context: { username?: string } = {}): FieldError[] {
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
    return errors;
  }

  assertAcceptable(password: string, context: { username?: string } = {}): void {
    const errors = this.violations(password, context);
    if (errors.length > 0) {
      throw new DomainError('PASSWORD_POLICY', 'The new password does not meet the password policy.', {
        errors,
      });
    }
  }
}
