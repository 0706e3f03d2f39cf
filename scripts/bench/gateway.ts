/**
 * Forward auth measured: the session check called directly, and through a real nginx whose
 * `auth_request` asks Gatehouse before it proxies to a bare application; beside it, the same nginx
 * proxying without asking (the gateway's own ceiling). Same connections and cookies as the session
 * phase.
 */
import type { ChildProcess } from 'node:child_process';
import { type Gateway, startGateway } from '../../test/support/gateways.js';
import { type LoadResult, runLoad } from './load.js';
import { startPortChild } from './port-child.js';

export interface GatewayPhases {
  /** GET /api/v1/session/check/ straight to the service (204). */
  session_check: LoadResult;
  /** GET /orders through nginx: auth_request to the service, then the bare application. */
  session_check_via_nginx: LoadResult;
  /** The same through nginx without auth_request: what nginx and the application cost alone. */
  nginx_proxy_only: LoadResult;
}

/** The application behind the gateway: bare Koa answering a small fixed body (bare-koa.mjs). */
function startBareApp(): Promise<{ url: string; child: ChildProcess }> {
  return startPortChild('bare-koa.mjs', { NODE_ENV: 'production', BARE_BODY: '{"orders":[]}' });
}

export async function gatewayPhases(options: {
  baseUrl: string;
  cookies: string[];
  connections: number;
  durationS: number;
}): Promise<GatewayPhases> {
  const cookieRequests = (path: string) =>
    options.cookies.map((cookie) => ({
      method: 'GET' as const,
      path,
      headers: { cookie: `sessionid=${cookie}` },
    }));
  const load = (baseUrl: string, path: string) =>
    runLoad({
      baseUrl,
      connections: options.connections,
      durationS: options.durationS,
      requests: cookieRequests(path),
    });
  const app = await startBareApp();
  const gateways: Gateway[] = [];
  try {
    const checked = await startGateway('nginx', options.baseUrl, app.url);
    gateways.push(checked);
    const plain = await startGateway('nginx', options.baseUrl, app.url, { auth: false });
    gateways.push(plain);
    return {
      session_check: await load(options.baseUrl, '/api/v1/session/check/'),
      session_check_via_nginx: await load(checked.url, '/orders'),
      nginx_proxy_only: await load(plain.url, '/orders'),
    };
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    app.child.kill('SIGTERM');
  }
}
