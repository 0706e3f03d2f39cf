import { DomainError } from '../shared/domain-error.js';

/**
 * The second-factor refusals of contract 3b. Messages are safe to show and say nothing about
 * which part was wrong: a wrong code, a replayed one and an unknown recovery code read the same.
 */

/** A wrong, replayed or used-up second factor (`401 MFA_INVALID`). */
export function mfaInvalid(): DomainError {
  return new DomainError('MFA_INVALID', 'The second factor is not valid.');
}

/** A pending session, or a session that must meet `requireMfa`, asked for more (`403 MFA_REQUIRED`). */
export function mfaRequired(): DomainError {
  return new DomainError('MFA_REQUIRED', 'A second factor is required.');
}

/** A feature missing its setting: TOTP without TOKEN_ENCRYPTION_KEY, WebAuthn without a relying party id. */
export function mfaNotConfigured(variable: string): DomainError {
  return new DomainError(
    'MFA_NOT_CONFIGURED',
    `This second factor is not available: the service has no ${variable} set.`,
  );
}

/** An SSO session on an enrolment route: its provider does its second factor. */
export function mfaNotApplicable(): DomainError {
  return new DomainError(
    'MFA_NOT_APPLICABLE',
    'Second factors are managed by the identity provider for this session.',
  );
}
