import Router from '@koa/router';
import type { GatehouseState } from '../state.js';

/** `GET /api/v1/openapi.json`: the document built once at start-up, serialised once. */
export function openApiRoutes(document: object): Router<GatehouseState> {
  const router = new Router<GatehouseState>();
  const text = JSON.stringify(document);
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = text;
  });
  return router;
}
