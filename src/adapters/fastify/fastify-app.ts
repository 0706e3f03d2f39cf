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
import type { HttpApp } from '../http/http-app.js';
import type { HttpCore, Matched } from '../http/http-core.js';
import { normalizedUrl } from '../http/normalize-path.js';

/** A Fastify request in the transport-neutral shape. */
class FastifyHttpRequest implements HttpRequest {
  constructor(private readonly request: FastifyRequest) {}
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
    return this.request.ip || null;
  }
  get ownOrigin() {
    return `${this.request.protocol}://${this.request.host}`;
  }
  get raw() {
    return this.request.raw;
  }
}

export function fastifyRequest(request: FastifyRequest): HttpRequest {
  return new FastifyHttpRequest(request);
}

/** Writes a neutral reply with Fastify's reply. */
export function writeFastifyReply(reply: FastifyReply, answer: Reply): FastifyReply {
  reply.code(answer.status);
  const cookies: string[] = [];
  for (const [name, value] of answer.headers) {
    if (name.toLowerCase() === 'set-cookie') cookies.push(value);
    else reply.header(name, value);
  }
  if (cookies.length > 0) reply.header('Set-Cookie', cookies);
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
  const fastify = Fastify<Server, IncomingMessage, ServerResponse>({
    logger: false,
    disableRequestLogging: true,
    // The Nth `X-Forwarded-For` entry from the right, as on Koa: the socket's peer (hop 0) and the
    // entries added by the trusted proxies before it are believed, no further.
    trustProxy: hops > 0 ? (_address: string, hop: number) => hop < hops : false,
    rewriteUrl: (request) => normalizedUrl(request.url ?? '/'),
    exposeHeadRoutes: true,
    routerOptions: { maxParamLength: 1000 },
    serverFactory: (handler) => {
      listener = handler as RequestListener;
      return createServer();
    },
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  const answer = async (request: FastifyRequest, reply: FastifyReply, matched: Matched) =>
    writeFastifyReply(reply, await core.answer(fastifyRequest(request), matched));
  for (const route of core.routes) {
    fastify.route({
      method: route.method,
      url: route.path,
      handler: (request, reply) => answer(request, reply, { route }),
    });
  }
  fastify.setNotFoundHandler((request, reply) => answer(request, reply, { route: null }));
  // Fastify's own refusals (a malformed URL, say) become problems like every other failure.
  fastify.setErrorHandler((error, request, reply) =>
    answer(request, reply, {
      route: {
        method: 'GET',
        path: request.url,
        handle: () => {
          const status = (error as { statusCode?: number }).statusCode ?? 500;
          if (status >= 400 && status < 500)
            throw new DomainError('INVALID_REQUEST', 'The request is malformed.');
          throw error;
        },
      },
    }),
  );
  await fastify.ready();
  const handler = listener as RequestListener | null;
  if (!handler) throw new Error('Fastify did not hand over its request handler');
  return { transport: 'fastify', routes: core.routes, callback: () => handler, fastify };
}
