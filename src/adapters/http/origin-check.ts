import { DomainError } from '../../domain/shared/domain-error.js';
import type { HttpRequest } from './exchange.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the Origin check reads of a request, whichever framework received it. */
export type OriginFacts = Pick<HttpRequest, 'method' | 'header' | 'ownOrigin'>;

/**
 * CSRF defence beside JSON-only bodies and SameSite cookies (ASVS 3.5.1-3.5.3): a state-changing
 * request whose `Origin` names another site not in TRUSTED_ORIGINS, or whose `Sec-Fetch-Site`
 * says cross-site without a trusted Origin, is refused. Why, or null (safe methods always pass).
 */
export function originRefusal(request: OriginFacts, trusted: ReadonlySet<string>): DomainError | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const origin = request.header('origin');
  const fetchSite = request.header('sec-fetch-site').toLowerCase();
  const originTrusted = origin !== '' && (origin === request.ownOrigin || trusted.has(origin));
  if (origin !== '' && !originTrusted) {
    return new DomainError('ORIGIN_REJECTED', 'Requests from this origin are not accepted.');
  }
  if (fetchSite === 'cross-site' && !originTrusted) {
    return new DomainError('ORIGIN_REJECTED', 'Cross-site requests are not accepted.');
  }
  return null;
}
