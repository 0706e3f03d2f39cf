import type { HttpApp, HttpTransport } from '../adapters/http/http-app.js';
import type { HttpCore } from '../adapters/http/http-core.js';
import { createFastifyApp } from '../adapters/http/skins/fastify.js';
import { createKoaApp } from '../adapters/http/skins/koa.js';

/** HTTP_TRANSPORT: the one place that picks the framework serving the API. */
export async function createHttpApp(
  transport: HttpTransport,
  core: HttpCore,
  options: { trustedProxyHops: number },
): Promise<HttpApp> {
  return transport === 'fastify' ? createFastifyApp(core, options) : createKoaApp(core, options);
}
