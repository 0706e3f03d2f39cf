import { randomUUID } from 'node:crypto';
import { isDomainError } from '../../domain/shared/domain-error.js';
import { Reply } from './exchange.js';
import { writeProblem } from './http-core.js';
import { SECURITY_HEADERS } from './security-headers.js';

/**
 * A guard mounted in a product team's app answers its refusals itself (401, 403, 503) as
 * problem+json with a request id, as Gatehouse's own routes do: the product's framework would make
 * a bare 500 of them. Null for anything not a DomainError (the framework's own error handling).
 */
export function guardRefusal(error: unknown): Reply | null {
  if (!isDomainError(error)) return null;
  const reply = new Reply();
  const requestId = randomUUID();
  reply.header('X-Request-Id', requestId);
  for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
  writeProblem(reply, error, requestId);
  return reply;
}
