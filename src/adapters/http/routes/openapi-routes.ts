import { z } from 'zod';
import { buildOpenApiDocument, type OpenApiDocumentOptions } from '../openapi/document.js';
import { defineRoute, type Route } from '../route.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/**
 * The route table with `GET /api/v1/openapi.json` added: the document of every route of the table
 * (itself included), built once at start-up from the routes' own declarations and served as the
 * same bytes to every request. A route left out of the table is left out of the document.
 */
export function withOpenApiDocument(
  routes: readonly Route[],
  options: Omit<OpenApiDocumentOptions, 'routes'>,
): Route[] {
  let text = '';
  const documentRoute = defineRoute({
    method: 'GET',
    path: OPENAPI_PATH,
    session: 'none',
    openapi: {
      operationId: 'openapi',
      tag: 'operations',
      summary: 'This OpenAPI document',
      responses: [
        {
          status: 200,
          description: 'The OpenAPI 3.1 document.',
          schema: z.looseObject({ openapi: z.string() }),
        },
      ],
      errors: [],
    },
    handle: ({ reply }) => reply.text('application/json; charset=utf-8', text),
  });
  const table = [...routes, documentRoute];
  text = JSON.stringify(buildOpenApiDocument({ ...options, routes: table }));
  return table;
}
