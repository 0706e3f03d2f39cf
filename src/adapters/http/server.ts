import type { RequestListener, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

/** Slow-client limits; the defaults are HTTP_HEADERS_TIMEOUT_MS etc. of src/boot/config/config.ts. */
export interface HttpTimeouts {
  /** The request line and headers must arrive within this (slow-loris). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

/** Header lines a request may carry; more is answered 431. */
export const MAX_HEADER_LINES = 200;

/**
 * Refuses a request with more than MAX_HEADER_LINES header lines, 431 as Node's own parser does.
 * Node 22 and later refuse past `maxHeadersCount`; Node 20 silently dropped the lines past it (a
 * cookie or forwarding header among them unseen). The server keeps one line more than the limit
 * so that, on every version, this check sees that a request went past it.
 */
function refuseTooManyHeaderLines(listener: RequestListener): RequestListener {
  return (request, response) => {
    if (request.rawHeaders.length / 2 > MAX_HEADER_LINES) {
      response.shouldKeepAlive = false;
      response.writeHead(431, { connection: 'close' }).end();
      request.resume();
      return;
    }
    listener(request, response);
  };
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/**
 * Listens with time-outs that keep slow clients (slow-loris) from holding the server: by default
 * headers must arrive within 10 s, a whole request within 30 s, idle keep-alive connections close
 * after 5 s. Node checks the header and request time-outs on an interval (30 s by default), so the
 * interval is tied to the time-outs: a slow client is cut within about 1.25 times its limit.
 */
export async function listen(
  app: { callback(): RequestListener },
  port: number,
  host: string,
  timeouts: Partial<HttpTimeouts> = {},
): Promise<RunningServer> {
  const limits = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  const server = createServer(
    {
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
      ),
    },
    refuseTooManyHeaderLines(app.callback()),
  );
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxHeadersCount = MAX_HEADER_LINES + 1;
  server.maxRequestsPerSocket = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
