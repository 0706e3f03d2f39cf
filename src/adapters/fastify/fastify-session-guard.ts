import type { FastifyPluginAsync, FastifyPluginOptions, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionAuthenticator } from '../../application/session-authenticator.js';
import type { GatehouseUser } from '../../client/gatehouse-user.js';
import { guardRefusal } from '../http/guard-problem.js';
import { type GuardSettings, productGuard } from '../http/session-guard.js';
import { fastifyRequest, writeFastifyReply } from './fastify-app.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by Gatehouse's session guard: who the session belongs to. */
    gatehouse?: GatehouseUser | null;
  }
}

/** What the guard needs, from the options it is registered with. */
export interface FastifyGuard {
  authenticator: Pick<SessionAuthenticator, 'authenticate'>;
  settings: GuardSettings;
}

/**
 * The session guard as an `onRequest` hook: it answers before Fastify reads or validates a body,
 * so a request without a session gets 401, never a route's 400 validation details. The handler
 * finds the user on `request.gatehouse`; a refusal is answered as problem+json (401, 403, 503).
 */
function sessionHook({ authenticator, settings }: FastifyGuard) {
  const guard = productGuard(authenticator, settings);
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
 * The session guard for a product team's own Fastify routes (`gatehouse/fastify`), as a plugin:
 * `await app.register(plugin, options)` guards every route registered after it in that scope. It
 * is not encapsulated (as `fastify-plugin` would mark it), so the hook reaches the routes of the
 * scope that registered it.
 */
export function fastifySessionPlugin<Options extends FastifyPluginOptions>(
  guardOf: (options: Options) => FastifyGuard,
): FastifyPluginAsync<Options> {
  const plugin: FastifyPluginAsync<Options> = async (instance, options) => {
    instance.decorateRequest('gatehouse', null);
    instance.addHook('onRequest', sessionHook(guardOf(options)));
  };
  Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: 'gatehouse-session',
  });
  return plugin;
}
