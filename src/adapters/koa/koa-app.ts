import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { HttpRequest, Reply } from '../http/exchange.js';
import { type PeerView, peerView } from '../http/forwarded.js';
import type { HttpApp } from '../http/http-app.js';
import type { HttpCore, Matched } from '../http/http-core.js';
import { normalizedPath } from '../http/normalize-path.js';

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
export function writeKoaReply(ctx: Context, reply: Reply): void {
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

export function koaRequest(ctx: Context, trustedProxyHops?: number): HttpRequest {
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
