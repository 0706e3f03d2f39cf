import type { Context, Middleware } from 'koa';
import { DomainError } from '../../domain/shared/domain-error.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence beside JSON-only bodies and SameSite cookies (ASVS 3.5.1-3.5.3): a state-changing
 * request whose `Origin` names another site not in TRUSTED_ORIGINS, or whose `Sec-Fetch-Site`
 * says cross-site without a trusted Origin, is refused.
 */
export function originCheck(trustedOrigins: readonly string[]): Middleware {
  const trusted = new Set(trustedOrigins);
  return async (ctx, next) => {
    const refusal = originRefusal(ctx, trusted);
    if (refusal) throw refusal;
    await next();
  };
}

/** Why this request must be refused as cross-site, or null (safe methods always pass). */
export function originRefusal(ctx: Context, trusted: ReadonlySet<string>): DomainError | null {
  if (SAFE_METHODS.has(ctx.method)) return null;
  const origin = ctx.get('Origin');
  const fetchSite = ctx.get('Sec-Fetch-Site').toLowerCase();
  // Not `ctx.origin`: since Koa 3 that is the request's own Origin header, which always matched.
  const ownOrigin = `${ctx.protocol}://${ctx.host}`;
  const originTrusted = origin !== '' && (origin === ownOrigin || trusted.has(origin));
  if (origin !== '' && !originTrusted) {
    return new DomainError('ORIGIN_REJECTED', 'Requests from this origin are not accepted.');
  }
  if (fetchSite === 'cross-site' && !originTrusted) {
    return new DomainError('ORIGIN_REJECTED', 'Cross-site requests are not accepted.');
  }
  return null;
}
