/**
 * `@gatehouse-auth/gatehouse-testing/errors`: what an interpreter needs at run time, without the
 * contract suite (which loads vitest, a development tool absent from a service's installation).
 * The service recognises this copy of `SsoInterpretationError` by its registered brand.
 */
export { SsoInterpretationError } from '../domain/sso/sso-interpretation-error.js';
export type { SsoInterpretationCode } from '../domain/sso/sso-token-interpreter.port.js';
