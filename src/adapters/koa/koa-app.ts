import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { HttpRequest, Reply } from '../http/exchange.js';
import type { HttpApp } from '../http/http-app.js';
import type { HttpCore, Matched } from '../http/http-core.js';
import { normalizedPath } from '../http/normalize-path.js';

/** A Koa request in the transport-neutral shape; the costlier parts are read only when asked. */
class KoaRequest implements HttpRequest {
  constructor(private readonly ctx: Context) {}
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
    return this.ctx.ip || null;
  }
  get ownOrigin() {
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

export function koaRequest(ctx: Context): HttpRequest {
  return new KoaRequest(ctx);
}

export interface KoaAppOptions {
  /** Proxies in front whose `X-Forwarded-*` headers are believed (0: none, the socket's address). */
  trustedProxyHops: number;
}

/** The API on Koa: Koa's router finds the route, HttpCore answers it. */
export function createKoaApp(core: HttpCore, options: KoaAppOptions): HttpApp & { koa: Koa } {
  // Behind N proxies, the client address is the Nth `X-Forwarded-For` entry from the right (Koa
  // keeps the last N, and `ctx.ip` is the first of those): each proxy appended the address it
  // saw, and whatever stands further left was sent by the client, so it proves nothing.
  const hops = options.trustedProxyHops;
  const koa = new Koa({ proxy: hops > 0, maxIpsCount: Math.max(hops, 1) });
  // Every failure is answered by HttpCore; this only silences Koa's default stderr printing.
  koa.silent = true;
  const answer = async (ctx: Context, matched: Matched) =>
    writeKoaReply(ctx, await core.answer(koaRequest(ctx), matched));
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
