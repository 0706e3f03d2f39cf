import type { RequestListener } from 'node:http';
import type { Route } from './route.js';

/** The transports that can serve the API (HTTP_TRANSPORT). */
export type HttpTransport = 'koa' | 'fastify';

/**
 * The API as one transport serves it, in the only terms `listen` and the composition need: a
 * Node request listener. Each transport adapter builds one over the same HttpCore.
 */
export interface HttpApp {
  readonly transport: HttpTransport;
  /** The routes served (the OpenAPI test compares them with the document). */
  readonly routes: readonly Route[];
  callback(): RequestListener;
}
