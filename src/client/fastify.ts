/**
 * gatehouse-client/fastify: `await app.register(gatehouseSession, { url })`. A plugin whose
 * `onRequest` hook covers the routes registered after it: a live session puts its user on
 * `request.gatehouse`; otherwise the request is answered 401, 403 or 503 (problem+json), and an
 * unsafe request from a foreign origin 403 ORIGIN_REJECTED, before any body is read or validated
 * (so a refused request never learns a route's validation details). Typed structurally: Fastify is
 * an optional peer, never imported at run time (only its request type is augmented).
 */
// Type-only, erased at build: lets the augmentation below find Fastify's declarations.
import type {} from 'fastify';
import { createGuard, type GatehouseSessionOptions, headerValue } from './guard.js';
import type { GatehouseUser } from './session-check.js';

export type { GatehouseSessionOptions } from './guard.js';
export type { GatehouseUser } from './session-check.js';

// Type-level only, nothing of Fastify is loaded: an app importing this plugin sees the user it
// puts on the request, with no declaration of its own.
declare module 'fastify' {
  interface FastifyRequest {
    /** Set by gatehouseSession: who the session belongs to, or null before the hook ran. */
    gatehouse?: GatehouseUser | null;
  }
}

interface FastifyRequestLike {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** Fastify's own view (its `trustProxy` setting decides whether X-Forwarded-* count). */
  protocol: string;
  /** `host` since Fastify 5 (with the port), `hostname` before. */
  host?: string;
  hostname: string;
  gatehouse?: GatehouseUser | null;
}
interface FastifyReplyLike {
  code(status: number): this;
  headers(values: Record<string, string>): this;
  send(body: string): unknown;
}
interface FastifyInstanceLike {
  decorateRequest(name: string, value: unknown): unknown;
  addHook(
    name: 'onRequest',
    hook: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>,
  ): unknown;
}

async function plugin(instance: FastifyInstanceLike, options: GatehouseSessionOptions): Promise<void> {
  const guard = createGuard(options);
  instance.decorateRequest('gatehouse', null);
  instance.addHook('onRequest', async (request, reply) => {
    const outcome = await guard({
      method: request.method,
      header: (name) => headerValue(request.headers[name]),
      ownOrigin: `${request.protocol}://${request.host ?? request.hostname}`,
      cookie: request.headers.cookie === undefined ? undefined : headerValue(request.headers.cookie),
    });
    if (!outcome.refusal) {
      request.gatehouse = outcome.user;
      return;
    }
    const { refusal } = outcome;
    return reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
  });
}

// The metadata `fastify-plugin` would set, by hand so the package keeps no dependency (the
// service's own plugins use `fastify-plugin`): not encapsulated, so the hook reaches the routes of
// the scope that registered it, not only the plugin's own; named; and the Fastify versions it is
// written for (its peer range), which `register` checks.
Object.assign(plugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'gatehouse-session',
  [Symbol.for('plugin-meta')]: { name: 'gatehouse-session', fastify: '>=4' },
});

export const gatehouseSession = plugin;
