import type { AuthenticatedSession } from '../../application/session-authenticator.js';
import type { HttpRequest, Reply } from './exchange.js';
import type { OriginFacts } from './origin-check.js';

export type RouteMethod = 'GET' | 'POST' | 'DELETE';

/**
 * One endpoint of the API, written once for every transport. A transport registers `path` with
 * its own router (`:name` parameters) and calls HttpCore.answer with the match.
 */
export interface Route {
  method: RouteMethod;
  path: string;
  /**
   * The session the route needs: `live` (a live session with unexpired credentials: 401, 403
   * PASSWORD_EXPIRED otherwise), `live-expired-allowed` (spec 5.4: the password change), or none.
   */
  session?: 'live' | 'live-expired-allowed';
  /**
   * Forward auth (contract 4a), where a gateway asks with the original request's method (and, for
   * Envoy, its path after the route's): `'path'` also answers every other method at `path`,
   * `'subtree'` every method at `path` and under it. HttpCore finds such a route when the
   * framework's router found none, so no method gets an answer without the route's session check.
   */
  catchAll?: 'path' | 'subtree';
  /**
   * The request whose Origin is checked (contract 3): this one by default; forward auth checks
   * the request the gateway asks about.
   */
  originOf?(request: HttpRequest): OriginFacts;
  handle(request: HttpRequest, reply: Reply, session: AuthenticatedSession | null): Promise<void> | void;
}

/** A route that needs a session gets one: the guard ran before the handler. */
export function sessionOf(session: AuthenticatedSession | null): AuthenticatedSession {
  if (!session) throw new Error('a session route ran without its session');
  return session;
}

/**
 * The one routing rule of every transport: a path names a route when it equals the route's path
 * byte for byte (case-sensitive, percent-escapes not decoded, doubled slashes not collapsed), a
 * `:parameter` standing for one non-empty segment. Frameworks' routers are laxer each in its own
 * way (Koa's ignores case, Fastify's decodes escapes), so a gateway rule on `/metrics` would not
 * cover `/METRICS` or `/%6Detrics`; both transports answer 404 for those.
 */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return false;
  return want.every((segment, index) =>
    segment.startsWith(':') ? have[index] !== '' : segment === have[index],
  );
}

/** The catch-all route answering `path` when the framework's router matched nothing, or null. */
export function catchAllRoute(routes: readonly Route[], path: string): Route | null {
  let found: Route | null = null;
  for (const route of routes) {
    const covers =
      route.catchAll === 'path'
        ? path === route.path
        : route.catchAll === 'subtree' && path.startsWith(route.path);
    // The most specific one: a subtree under another route's path is its own.
    if (covers && (!found || route.path.length > found.path.length)) found = route;
  }
  return found;
}

/**
 * The methods the API serves at `path` (a 405's `Allow`, RFC 9110): HEAD with GET, and OPTIONS,
 * as Koa's router announced them; empty when no route has this path (404).
 */
export function allowedMethods(routes: readonly Route[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (!pathMatches(route.path, path)) continue;
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return methods.size === 0 ? [] : [...methods];
}
