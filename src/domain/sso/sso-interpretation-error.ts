import { DomainError } from '../shared/domain-error.js';
import { SSO_INTERPRETATION_CODES, type SsoInterpretationCode } from './sso-token-interpreter.port.js';

/**
 * Marks an SsoInterpretationError whichever copy of the class made it: an interpreter package
 * tests with `gatehouse-testing` and may throw that package's class, while the service has its
 * own; `instanceof` cannot see across copies, the registered symbol can.
 */
const BRAND = Symbol.for('gatehouse.SsoInterpretationError');

const CODES: ReadonlySet<string> = new Set(SSO_INTERPRETATION_CODES);

/** Thrown by interpreters (including customer packages) to refuse a token set with an SSO code. */
export class SsoInterpretationError extends DomainError {
  readonly [BRAND] = true;

  constructor(code: SsoInterpretationCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'SsoInterpretationError';
  }
}

/**
 * What an interpreter threw, as the service answers it: a DomainError of this copy as it is; an
 * SsoInterpretationError of another copy (branded, with an SSO code) as this copy's; else null
 * (a bug of the interpreter's, answered SSO_INVALID by the caller).
 */
export function interpretationRefusal(error: unknown): DomainError | null {
  // This copy's class only: a foreign copy's refusal is answered as this copy's SsoInterpretationError
  // (below) when it carries an SSO code, and as an interpreter's bug otherwise.
  if (error instanceof DomainError) return error;
  if (typeof error !== 'object' || error === null) return null;
  const foreign = error as { [BRAND]?: unknown; code?: unknown; message?: unknown };
  if (foreign[BRAND] !== true || typeof foreign.code !== 'string' || !CODES.has(foreign.code)) return null;
  return new SsoInterpretationError(foreign.code as SsoInterpretationCode, String(foreign.message ?? ''), {
    cause: error,
  });
}
