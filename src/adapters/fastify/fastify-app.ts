import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { HttpRequest, Reply } from '../http/exchange.js';
import { type PeerView, peerView } from '../http/forwarded.js';
import type { HttpApp } from '../http/http-app.js';
import type { HttpCore, Matched } from '../http/http-core.js';
import { normalizedUrl } from '../http/normalize-path.js';
import type { MatchedRoute } from '../http/route.js';

/** A route that fails with `error` (a 4xx of Fastify's own is a malformed request). */
function failing(error: unknown): MatchedRoute {
  return {
    method: 'GET',
    path: '',
    handle: () => {
      if (error instanceof DomainError) throw error;
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      if (status >= 400 && status < 500)
        throw new DomainError('INVALID_REQUEST', 'The request is malformed.');
      throw error;
    },
  };
}

/** A Fastify request in the transport-neutral shape. */
class FastifyHttpRequest implements HttpRequest {
  private peer: PeerView | undefined;

  /** `trustedProxyHops`: the service's reading of X-Forwarded-*; none: the app's own Fastify settings. */
  constructor(
    private readonly request: FastifyRequest,
    private readonly trustedProxyHops?: number,
  ) {}
  private get view(): PeerView {
    this.peer ??= peerView(this.request.raw, this.trustedProxyHops ?? 0);
    return this.peer;
  }
  get method() {
    return this.request.method;
  }
  get path() {
    const url = this.request.url;
    const query = url.indexOf('?');
    return query === -1 ? url : url.slice(0, query);
  }
  header(name: string): string {
    const value = this.request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  }
  get query() {
    return this.request.query as Record<string, string | string[] | undefined>;
  }
  get params() {
    return (this.request.params ?? {}) as Record<string, string>;
  }
  get clientAddress() {
    if (this.trustedProxyHops !== undefined) return this.view.clientAddress;
    return this.request.ip || null;
  }
  get ownOrigin() {
    if (this.trustedProxyHops !== undefined) return this.view.ownOrigin;
    return `${this.request.protocol}://${this.request.host}`;
  }
  get raw() {
    return this.request.raw;
  }
}

export function fastifyRequest(request: FastifyRequest, trustedProxyHops?: number): HttpRequest {
  return new FastifyHttpRequest(request, trustedProxyHops);
}

/** Writes a neutral reply with Fastify's reply. */
export function writeFastifyReply(reply: FastifyReply, answer: Reply): FastifyReply {
  reply.code(answer.status);
  for (const [name, value] of answer.headersByName()) reply.header(name, value);
  const wire = answer.wire();
  if (!wire) return reply.send();
  reply.header('Content-Type', wire.contentType);
  return reply.send(wire.payload);
}

export interface FastifyAppOptions {
  /** Proxies in front whose `X-Forwarded-*` headers are believed (0: none, the socket's address). */
  trustedProxyHops: number;
}

/**
 * The API on Fastify 5: Fastify's router finds the route, HttpCore answers it. Fastify reads no
 * body itself (its parsers are replaced by one that leaves the stream to the routes' readers, so
 * limits and media-type rules are the same as on Koa) and serves through the same node:http server
 * (`listen`): its request handler is taken from `serverFactory`, the server it makes is never used.
 */
export async function createFastifyApp(
  core: HttpCore,
  options: FastifyAppOptions,
): Promise<HttpApp & { fastify: FastifyInstance }> {
  let listener: RequestListener | null = null;
  const hops = options.trustedProxyHops;
  const routeOf = (request: FastifyRequest) =>
    core.routes.find((route) => route.method === request.method && route.path === request.routeOptions.url) ??
    null;
  const answer = async (request: FastifyRequest, reply: FastifyReply, matched: Matched) =>
    writeFastifyReply(reply, await core.answer(fastifyRequest(request, hops), matched));
  const fastify = Fastify<Server, IncomingMessage, ServerResponse>({
    logger: false,
    // X-Forwarded-* are read by forwarded.ts, the same way on every transport, not by Fastify.
    trustProxy: false,
    rewriteUrl: (request) => normalizedUrl(request.url ?? '/'),
    exposeHeadRoutes: true,
    // A path parameter of any length reaches the route, which judges it (a handle that long is 404).
    routerOptions: { maxParamLength: 65_536 },
    // A path that cannot be decoded (`%FF`) names no resource: 404, as on Koa.
    frameworkErrors: (error, request, reply) =>
      answer(request, reply, {
        route: failing(
          error.code === 'FST_ERR_BAD_URL' ? new DomainError('NOT_FOUND', 'No such resource.') : error,
        ),
      }),
    serverFactory: (handler) => {
      listener = handler as RequestListener;
      return createServer();
    },
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  for (const route of core.routes) {
    fastify.route({
      method: route.method,
      url: route.path,
      handler: (request, reply) => answer(request, reply, { route }),
    });
  }
  fastify.setNotFoundHandler((request, reply) => answer(request, reply, { route: null }));
  // Fastify's own refusals become problems like every other failure. A content type Fastify
  // would not hand to a parser is the route's to judge (its body reader answers 415 or reads
  // nothing), as on Koa.
  fastify.setErrorHandler((error, request, reply) => {
    const code = (error as { code?: string }).code ?? '';
    const route = code.startsWith('FST_ERR_CTP_') ? routeOf(request) : null;
    return answer(request, reply, { route: route ?? failing(error) });
  });
  await fastify.ready();
  const handler = listener as RequestListener | null;
  if (!handler) throw new Error('Fastify did not hand over its request handler');
  return { transport: 'fastify', routes: core.routes, callback: () => handler, fastify };
}
