/**
 * Slow clients against the HTTP listener: a slow-loris client (headers a byte at a time), a slow
 * body, an idle keep-alive connection. The limits come from HTTP_HEADERS_TIMEOUT_MS,
 * HTTP_REQUEST_TIMEOUT_MS and HTTP_KEEP_ALIVE_TIMEOUT_MS, small here; main.ts passes the same
 * `config.http` to listen().
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { createLogger } from '../../src/adapters/logging/logger.js';
import { loadConfig } from '../../src/config/config.js';
import { createGatehouseOver, type Gatehouse } from '../../src/gatehouse.js';
import { openTestPglite } from '../support/databases.js';
import { report, sleep } from './support/timing.js';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const KEEP_ALIVE_TIMEOUT_MS = 500;

interface RawConnection {
  socket: Socket;
  received: () => string;
  /** Resolves with the ms from connect to close. */
  closed: Promise<number>;
}

function open(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => {});
    const closed = new Promise<number>((done) =>
      socket.once('close', () => done(Math.round(performance.now() - started))),
    );
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` while the socket is open. */
async function drip(socket: Socket, text: string, everyMs: number): Promise<void> {
  for (const byte of text) {
    if (socket.destroyed || socket.writableEnded) return;
    socket.write(byte);
    await sleep(everyMs);
  }
}

// Both transports are served by the same listener: the limits hold on each (issue 12).
for (const transport of ['koa', 'fastify'] as const) {
  describe(`slow clients [${transport === 'koa' ? 'pglite' : 'fastify'}]`, () => {
    let gatehouse: Gatehouse;
    let running: RunningServer;

    beforeAll(async () => {
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        HTTP_TRANSPORT: transport,
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      });
      gatehouse = await createGatehouseOver(await openTestPglite(), {
        config,
        logger: createLogger('silent'),
      });
      // As main.ts does.
      running = await listen(gatehouse.app, 0, '127.0.0.1', config.http);
    });

    afterAll(async () => {
      await running?.close(500);
      await gatehouse?.close();
    });

    it('keeps the defaults of 10 s, 30 s and 5 s when nothing is configured', async () => {
      const defaults = loadConfig({}).http;
      expect(defaults).toMatchObject({
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 5_000,
      });
      const plain = await listen({ callback: () => (_req, res) => res.end() }, 0, '127.0.0.1', defaults);
      try {
        expect(plain.server.headersTimeout).toBe(10_000);
        expect(plain.server.requestTimeout).toBe(30_000);
        expect(plain.server.keepAliveTimeout).toBe(5_000);
      } finally {
        await plain.close(100);
      }
      expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
    });

    it('cuts slow-loris clients after the headers time-out while serving everyone else', async () => {
      const loris = await Promise.all(Array.from({ length: 30 }, () => open(running.url)));
      for (const { socket } of loris) {
        void drip(
          socket,
          'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
          250,
        );
      }
      // Meanwhile, ordinary clients get answers at once.
      const latencies: number[] = [];
      const closedAll = Promise.all(loris.map(({ closed }) => closed));
      let allClosed = false;
      void closedAll.then(() => {
        allClosed = true;
      });
      while (!allClosed) {
        const started = performance.now();
        const response = await fetch(`${running.url}/healthz`);
        expect(response.status).toBe(200);
        await response.text();
        latencies.push(performance.now() - started);
        await sleep(50);
      }
      const closedAfter = await closedAll;
      // Node answers 408 and closes; the check runs every quarter of the limit (at most 1 s).
      for (const ms of closedAfter) {
        expect(ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
        expect(ms).toBeLessThan(HEADERS_TIMEOUT_MS * 1.25 + 500);
      }
      for (const { received } of loris) expect(received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(Math.max(...latencies)).toBeLessThan(500);
      report(
        `slow-loris: 30 clients dripping headers closed after ${Math.min(...closedAfter)}-${Math.max(...closedAfter)} ms ` +
          `(HTTP_HEADERS_TIMEOUT_MS=${HEADERS_TIMEOUT_MS}); ${latencies.length} other requests meanwhile, ` +
          `slowest ${Math.round(Math.max(...latencies))} ms`,
      );
    });

    it('cuts a client that sends its body too slowly after the request time-out', async () => {
      const slow = await open(running.url);
      const body = JSON.stringify({ username: 'someone', password: 'x'.repeat(40) });
      slow.socket.write(
        'POST /api/v1/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      void drip(slow.socket, body, 250);
      const ms = await slow.closed;
      expect(ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS * 1.25 + 500);
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
      report(`slow body: closed after ${ms} ms (HTTP_REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS})`);
    });

    it('closes an idle keep-alive connection after the keep-alive time-out', async () => {
      const idle = await open(running.url);
      idle.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
      while (!idle.received().includes('\r\n\r\n')) await sleep(10);
      const answeredAt = performance.now();
      expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);
      expect(idle.received()).toMatch(/Keep-Alive: timeout=0?\.?\d+/i);
      await idle.closed;
      const idleMs = Math.round(performance.now() - answeredAt);
      expect(idleMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
      // Node keeps an idle socket 1 s past keepAliveTimeout (so a client honouring the advertised
      // Keep-Alive timeout never races the close).
      expect(idleMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 1000 + 500);
      report(
        `keep-alive: idle connection closed ${idleMs} ms after its last answer (HTTP_KEEP_ALIVE_TIMEOUT_MS=${KEEP_ALIVE_TIMEOUT_MS})`,
      );
    });
  });
}
