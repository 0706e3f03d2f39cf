/**
 * The one Origin rule (contract 3), for the service's own routes, its forward-auth check, the
 * embedded guards and gatehouse-client's middlewares alike. Dependency-free, so the client package
 * ships it as it is. CSRF defence beside JSON-only bodies and SameSite cookies (ASVS 3.5.1-3.5.3):
 * a state-changing request whose `Origin` names another site not trusted, or whose
 * `Sec-Fetch-Site` says cross-site without a trusted Origin, is refused.
 */

import { ORIGIN_REFUSAL_DETAILS } from './wire.js';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the rule reads of a request, whichever framework or gateway brought it. */
export interface OriginFacts {
  readonly method: string;
  /** A request header by its lower-case name; '' when absent. */
  header(name: string): string;
  /** `<protocol>://<host>` of the request itself: its own origin is always trusted. */
  readonly ownOrigin: string;
}

/** Why the request is refused, or null (safe methods always pass). */
export function crossSiteRefusal(request: OriginFacts, trusted: ReadonlySet<string>): string | null {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return null;
  const origin = request.header('origin');
  const fetchSite = request.header('sec-fetch-site').toLowerCase();
  const originTrusted = origin !== '' && (origin === request.ownOrigin || trusted.has(origin));
  if (origin !== '' && !originTrusted) return ORIGIN_REFUSAL_DETAILS.foreignOrigin;
  if (fetchSite === 'cross-site' && !originTrusted) return ORIGIN_REFUSAL_DETAILS.crossSiteFetch;
  return null;
}
