import { crossSiteRefusal, type OriginFacts } from '../../client/origin-rule.js';
import { DomainError } from '../../domain/shared/domain-error.js';

export type { OriginFacts } from '../../client/origin-rule.js';

/**
 * The Origin rule (`crossSiteRefusal`, one rule for the service, the guards and the client) as
 * the service answers it: 403 ORIGIN_REJECTED, or null.
 */
export function originRefusal(request: OriginFacts, trusted: ReadonlySet<string>): DomainError | null {
  const reason = crossSiteRefusal(request, trusted);
  return reason === null ? null : new DomainError('ORIGIN_REJECTED', reason);
}
