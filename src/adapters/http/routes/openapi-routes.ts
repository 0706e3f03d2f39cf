import type { Route } from '../route.js';

/** `GET /api/v1/openapi.json`: the document built once at start-up, serialised once. */
export function openApiRoutes(document: object): Route[] {
  const text = JSON.stringify(document);
  return [
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      handle: (_request, reply) => reply.text('application/json; charset=utf-8', text),
    },
  ];
}
