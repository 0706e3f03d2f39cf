/**
 * Koa: the API's skin (Koa's router finds the route, HttpCore answers it) and the session guard
 * for a product team's own Koa routes (`@gatehouse-auth/gatehouse/koa`). Koa is imported here and
 * nowhere else.
 */
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import type { HttpRequest, Reply } from '../exchange.js';
import { type PeerView, peerView } from '../forwarded.js';
import { guardRefusal } from '../guard-problem.js';
import type { HttpApp } from '../http-app.js';
import type { HttpCore, Matched } from '../http-core.js';
import { normalizedPath } from '../normalize-path.js';
import { embeddedGuard, type GatehouseSessionOptions } from '../session-guard.js';
import type { GatehouseState } from '../state.js';

export type { GatehouseUser } from '../../../client/gatehouse-user.js';
export type { GatehouseSessionOptions, SessionGuardSource } from '../session-guard.js';
export type { GatehouseState } from '../state.js';

/** A Koa request in the transport-neutral shape; the costlier parts are read only when asked. */
class KoaRequest implements HttpRequest {
  private peer: PeerView | undefined;

  /** `trustedProxyHops`: the service's reading of X-Forwarded-*; none: the app's own Koa settings. */
  constructor(
    private readonly ctx: Context,
    private readonly trustedProxyHops?: number,
  ) {}
  private get view(): PeerView {
    this.peer ??= peerView(this.ctx.req, this.trustedProxyHops ?? 0);
    return this.peer;
  }
  get method() {
    return this.ctx.method;
  }
  get path() {
    return this.ctx.path;
  }
  header(name: string): string {
    return this.ctx.get(name);
  }
  get query() {
    return this.ctx.query;
  }
  get params(): Record<string, string> {
    return (this.ctx as Context & { params?: Record<string, string> }).params ?? {};
  }
  get clientAddress() {
    if (this.trustedProxyHops !== undefined) return this.view.clientAddress;
    return this.ctx.ip || null;
  }
  get ownOrigin() {
    if (this.trustedProxyHops !== undefined) return this.view.ownOrigin;
    // Not `ctx.origin`: since Koa 3 that is the request's own Origin header, which always matched.
    return `${this.ctx.protocol}://${this.ctx.host}`;
  }
  get raw() {
    return this.ctx.req;
  }
}

/** Writes a neutral reply on Koa's response. */
function writeKoaReply(ctx: Context, reply: Reply): void {
  ctx.status = reply.status;
  for (const [name, value] of reply.headersByName()) ctx.set(name, value);
  const wire = reply.wire();
  if (wire) {
    // Before the body: Koa keeps a Content-Type that is already set.
    ctx.set('Content-Type', wire.contentType);
    ctx.body = wire.payload;
  } else {
    ctx.body = null;
  }
}

function koaRequest(ctx: Context, trustedProxyHops?: number): HttpRequest {
  return new KoaRequest(ctx, trustedProxyHops);
}

export interface KoaAppOptions {
  /** Proxies in front whose `X-Forwarded-*` headers are believed (0: none, the socket's address). */
  trustedProxyHops: number;
}

/** The API on Koa: Koa's router finds the route, HttpCore answers it. */
export function createKoaApp(core: HttpCore, options: KoaAppOptions): HttpApp & { koa: Koa } {
  // X-Forwarded-* are read by forwarded.ts, the same way on every transport, not by Koa (which
  // takes the leftmost X-Forwarded-Proto and -Host, where a client's own value stands).
  const hops = options.trustedProxyHops;
  const koa = new Koa();
  // Every failure is answered by HttpCore; this only silences Koa's default stderr printing.
  koa.silent = true;
  const answer = async (ctx: Context, matched: Matched) =>
    writeKoaReply(ctx, await core.answer(koaRequest(ctx, hops), matched));
  koa.use(async (ctx, next) => {
    ctx.path = normalizedPath(ctx.path);
    await next();
  });
  const router = new Router();
  for (const route of core.routes)
    router.register(route.path, [route.method], (ctx) => answer(ctx, { route }));
  koa.use(router.routes());
  // Reached only when no route matched the method and path: 404, or 405 with Allow.
  koa.use((ctx) => answer(ctx, { route: null }));
  return { transport: 'koa', routes: core.routes, callback: () => koa.callback(), koa };
}

/**
 * The session guard for a product team's own Koa routes: the Origin check on unsafe methods, the
 * session check and the expired-credentials gate. `app.use(gatehouseSession({ gatehouse }))` or on
 * one route: the handler finds the user on `ctx.state.gatehouse`; a refusal is answered as
 * problem+json.
 */
export function gatehouseSession(options: GatehouseSessionOptions): Middleware<GatehouseState> {
  const guard = embeddedGuard(options);
  return async (ctx, next) => {
    try {
      ctx.state.gatehouse = await guard(koaRequest(ctx));
    } catch (error) {
      const refusal = guardRefusal(error);
      if (!refusal) throw error;
      writeKoaReply(ctx, refusal);
      return;
    }
    await next();
  };
}
