/**
 * What every gatehouse-client middleware does before its framework's part: the Origin rule on
 * unsafe methods (the service's own, `origin-rule.ts`), then the session check. A request either
 * passes with its user or gets the refusal to send, as the service would answer it.
 */
import { crossSiteRefusal, type OriginFacts } from './origin-rule.js';
import { type Refusal, refusalFor } from './problem.js';
import {
  createSessionCheck,
  type GatehouseUser,
  type SessionCheckOptions,
  type SessionCheckResult,
} from './session-check.js';
import type { GuardRefusalKind } from './wire.js';

export interface GatehouseSessionOptions extends SessionCheckOptions {
  /**
   * Origins besides the app's own whose unsafe requests (POST, PUT, PATCH, DELETE) are accepted,
   * as the service's TRUSTED_ORIGINS (the portal's, when it calls this app from a browser).
   * Default: none.
   */
  trustedOrigins?: readonly string[];
}

/** The request as the guard reads it: the Origin rule's facts and the Cookie header. */
export interface GuardedRequest extends OriginFacts {
  readonly cookie: string | undefined;
}

export type GuardOutcome = { user: GatehouseUser; refusal?: undefined } | { refusal: Refusal };

/** The refusal a middleware answers for each result of the check that is not a live session. */
const REFUSAL_KIND: Record<Exclude<SessionCheckResult['status'], 'live'>, GuardRefusalKind> = {
  none: 'none',
  expired: 'expired',
  mfa_required: 'mfa-required',
  reauthentication_required: 'reauthentication-required',
  unavailable: 'unavailable',
};

export function createGuard(
  options: GatehouseSessionOptions,
): (request: GuardedRequest) => Promise<GuardOutcome> {
  const check = createSessionCheck(options);
  const trusted: ReadonlySet<string> = new Set(options.trustedOrigins ?? []);
  return async (request) => {
    // First, as on the service: a cross-site state change is refused whoever sends it.
    const crossSite = crossSiteRefusal(request, trusted);
    if (crossSite !== null) return { refusal: refusalFor('cross-site', crossSite) };
    const result = await check(request.cookie);
    return result.status === 'live'
      ? { user: result.user }
      : { refusal: refusalFor(REFUSAL_KIND[result.status]) };
  };
}

/** A Node header value as one string ('' when absent). */
export function headerValue(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
