/**
 * Fastify 5: the API's skin (Fastify's router finds the route, HttpCore answers it) and the session
 * guard for a product team's own Fastify routes (`@gatehouse-auth/gatehouse/fastify`). Both are
 * Fastify plugins named by `fastify-plugin` metadata. Fastify is imported here and nowhere else.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { GatehouseUser } from '../../../client/gatehouse-user.js';
import { DomainError } from '../../../domain/shared/domain-error.js';
import type { HttpRequest, Reply } from '../exchange.js';
import { type PeerView, peerView } from '../forwarded.js';
import { guardRefusal } from '../guard-problem.js';
import type { HttpApp } from '../http-app.js';
import type { HttpCore, Matched } from '../http-core.js';
import { normalizedUrl } from '../normalize-path.js';
import type { MatchedRoute } from '../route.js';
import { embeddedGuard, type GatehouseSessionOptions } from '../session-guard.js';

export type { GatehouseUser } from '../../../client/gatehouse-user.js';
export type { GatehouseSessionOptions, SessionGuardSource } from '../session-guard.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by Gatehouse's session guard: who the session belongs to. */
    gatehouse?: GatehouseUser | null;
  }
}

/** The Fastify versions both plugins are written for: `register` refuses them on another. */
const FASTIFY_VERSIONS = '5.x';

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

function fastifyRequest(request: FastifyRequest, trustedProxyHops?: number): HttpRequest {
  return new FastifyHttpRequest(request, trustedProxyHops);
}

/** Writes a neutral reply with Fastify's reply. */
function writeFastifyReply(reply: FastifyReply, answer: Reply): FastifyReply {
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

/** HttpCore's answer to a Fastify request (for `matched`), written with Fastify's reply. */
function answerer(core: HttpCore, trustedProxyHops: number) {
  return async (request: FastifyRequest, reply: FastifyReply, matched: Matched) =>
    writeFastifyReply(reply, await core.answer(fastifyRequest(request, trustedProxyHops), matched));
}

/** What the API plugin is registered with. */
interface ApiOptions extends FastifyAppOptions {
  core: HttpCore;
}

/**
 * The API's routes, body handling and refusals, as a plugin on the instance `createFastifyApp`
 * builds. Not encapsulated (`fastify-plugin`): the not-found and error handlers and the body
 * parser it sets are the instance's own, so they also cover what no route of the table matched.
 */
const gatehouseApi: FastifyPluginAsync<ApiOptions> = fastifyPlugin(
  async (fastify: FastifyInstance, { core, trustedProxyHops }: ApiOptions) => {
    const routeOf = (request: FastifyRequest) =>
      core.routes.find(
        (route) => route.method === request.method && route.path === request.routeOptions.url,
      ) ?? null;
    const answer = answerer(core, trustedProxyHops);
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
  },
  { name: 'gatehouse-api', fastify: FASTIFY_VERSIONS },
);

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
  const answer = answerer(core, options.trustedProxyHops);
  const fastify = Fastify<Server, IncomingMessage, ServerResponse>({
    logger: false,
    // X-Forwarded-* are read by forwarded.ts, the same way on every transport, not by Fastify.
    trustProxy: false,
    rewriteUrl: (request) => normalizedUrl(request.url ?? '/'),
    exposeHeadRoutes: true,
    // A path parameter of any length reaches the route, which judges it (a handle that long is 404).
    routerOptions: { maxParamLength: 65_536 },
    // A path that cannot be decoded (`%FF`) names no resource: 404, as on Koa. These refusals come
    // before any plugin's handlers, so they are answered here, at the instance.
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
  await fastify.register(gatehouseApi, { core, trustedProxyHops: options.trustedProxyHops });
  await fastify.ready();
  const handler = listener as RequestListener | null;
  if (!handler) throw new Error('Fastify did not hand over its request handler');
  return { transport: 'fastify', routes: core.routes, callback: () => handler, fastify };
}

/**
 * The session guard as an `onRequest` hook: it answers before Fastify reads or validates a body,
 * so a request without a session gets 401, never a route's 400 validation details. The handler
 * finds the user on `request.gatehouse`; a refusal is answered as problem+json (401, 403, 503).
 */
function sessionHook(options: GatehouseSessionOptions) {
  const guard = embeddedGuard(options);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    try {
      request.gatehouse = await guard(fastifyRequest(request));
    } catch (error) {
      const refusal = guardRefusal(error);
      if (!refusal) throw error;
      await writeFastifyReply(reply, refusal);
    }
  };
}

/**
 * The session guard for a product team's own Fastify routes, as a plugin:
 * `await app.register(gatehouseSession, { gatehouse })` guards every route registered after it in
 * that scope, the user on `request.gatehouse`. Not encapsulated (`fastify-plugin`), so the hook
 * reaches the routes of the scope that registered it.
 */
export const gatehouseSession: FastifyPluginAsync<GatehouseSessionOptions> = fastifyPlugin(
  async (instance: FastifyInstance, options: GatehouseSessionOptions) => {
    instance.decorateRequest('gatehouse', null);
    instance.addHook('onRequest', sessionHook(options));
  },
  { name: 'gatehouse-session', fastify: FASTIFY_VERSIONS },
);
