/**
 * gatehouse-client/fastify: `await app.register(gatehouseSession, { url })`. A plugin whose
 * preHandler covers the routes registered after it: a live session puts its user on
 * `request.gatehouse`; otherwise the request is answered 401, 403 or 503 (problem+json). Typed
 * structurally: Fastify is an optional peer, never imported.
 */
import { refusalFor } from './problem.js';
import { createSessionCheck, type GatehouseUser, type SessionCheckOptions } from './session-check.js';

export type { GatehouseUser, SessionCheckOptions } from './session-check.js';

interface FastifyRequestLike {
  headers: { cookie?: string | undefined };
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
    name: 'preHandler',
    hook: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>,
  ): unknown;
}

async function plugin(instance: FastifyInstanceLike, options: SessionCheckOptions): Promise<void> {
  const check = createSessionCheck(options);
  instance.decorateRequest('gatehouse', null);
  instance.addHook('preHandler', async (request, reply) => {
    const result = await check(request.headers.cookie);
    if (result.status === 'live') {
      request.gatehouse = result.user;
      return;
    }
    const refusal = refusalFor(result);
    return reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
  });
}

// Not encapsulated (what `fastify-plugin` marks): the hook reaches the routes of the scope that
// registered it, not only the plugin's own.
Object.assign(plugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'gatehouse-session',
});

export const gatehouseSession = plugin;
