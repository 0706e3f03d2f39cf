/**
 * Fastify plugins name themselves with `fastify-plugin` metadata (docs/architecture.md): the
 * service's API plugin and its guard for product routes, and gatehouse-client's guard (which sets
 * the same metadata by hand, to keep the package free of dependencies). Fastify then knows them by
 * name (`hasPlugin`, a plugin's `dependencies`) and refuses them on a Fastify they were not written for.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatehouseSession as clientSession } from '../../src/client/fastify.js';
import { gatehouseSession } from '../../src/guards/fastify.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('Fastify plugin metadata', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ store: 'fastify' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the API through a plugin named gatehouse-api', () => {
    const { fastify } = server.gatehouse.app as typeof server.gatehouse.app & { fastify: FastifyInstance };
    expect(fastify.hasPlugin('gatehouse-api')).toBe(true);
  });

  it('names both session guards gatehouse-session, registered in the scope that registers them', async () => {
    const guards: Array<[plugin: object, register: (scope: FastifyInstance) => Promise<unknown>]> = [
      [gatehouseSession, async (scope) => scope.register(gatehouseSession, { gatehouse: server.gatehouse })],
      [clientSession, async (scope) => scope.register(clientSession, { url: server.url })],
    ];
    for (const [plugin, register] of guards) {
      expect(Reflect.get(plugin, Symbol.for('plugin-meta'))).toMatchObject({
        name: 'gatehouse-session',
        fastify: expect.any(String),
      });
      const app = Fastify();
      await app.register(async (scope) => {
        await register(scope);
        // Not encapsulated: the hook and the decoration belong to the registering scope.
        expect(scope.hasPlugin('gatehouse-session')).toBe(true);
        expect(scope.hasRequestDecorator('gatehouse')).toBe(true);
      });
      await app.ready();
      await app.close();
    }
  });
});
