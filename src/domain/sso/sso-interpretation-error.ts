import { DomainError } from '../shared/domain-error.js';
import type { SsoInterpretationCode } from './sso-token-interpreter.port.js';

/** Thrown by interpreters (including customer packages) to refuse a token set with an SSO code. */
export class SsoInterpretationError extends DomainError {
  constructor(code: SsoInterpretationCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'SsoInterpretationError';
  }
}
