import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedSession, SessionAuthenticator } from '../../application/session-authenticator.js';
import { guardRefusal } from '../http/guard-problem.js';
import { type ProductGuardOptions, productGuard } from '../http/session-guard.js';
import { fastifyRequest, writeFastifyReply } from './fastify-app.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by Gatehouse's session guard: the session and its user. */
    gatehouse?: AuthenticatedSession;
  }
}

/**
 * The session guard for a product team's own Fastify routes (`gatehouse/fastify`), as a
 * `preHandler`: `{ preHandler: guard }` on a route, or `app.addHook('preHandler', guard)`. The
 * handler finds the session and user on `request.gatehouse`; a refusal is answered as
 * problem+json (401, 403, 503).
 */
export function fastifySessionGuard(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  options: ProductGuardOptions,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const guard = productGuard(authenticator, options);
  return async (request, reply) => {
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
 * The same guard as a plugin: `await app.register(fastifySessionPlugin(...))` guards every route
 * registered after it in that scope. It is not encapsulated (as `fastify-plugin` would mark it),
 * so the hook reaches the routes of the scope that registered it.
 */
export function fastifySessionPlugin(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  options: ProductGuardOptions,
): (instance: FastifyInstance) => Promise<void> {
  const guard = fastifySessionGuard(authenticator, options);
  const plugin = async (instance: FastifyInstance) => {
    instance.decorateRequest('gatehouse', undefined);
    instance.addHook('preHandler', guard);
  };
  Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  return plugin;
}
