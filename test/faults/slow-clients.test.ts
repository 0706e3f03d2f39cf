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
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver, type ServiceGatehouse as Gatehouse } from '../../src/boot/gatehouse.js';
import { openTestPglite } from '../support/databases.js';
import { report } from './support/timing.js';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const KEEP_ALIVE_TIMEOUT_MS = 500;
/** listen() checks the header and request time-outs this often: a quarter of the shorter limit. */
const CHECK_EVERY_MS = Math.min(HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS) / 4;
/** Node keeps an idle keep-alive socket this much past keepAliveTimeout (its timeout buffer). */
const NODE_KEEP_ALIVE_BUFFER_MS = 1000;

/*
 * No elapsed-time upper bound: a time-out is shown by timer order. Each slow client finishes its
 * request on a timer of this process, due after the server's check for that limit has come round
 * (the server runs in this process too, and Node runs due timers in the order they fall due); a
 * time-out that did not fire lets the request through, and the client gets an answer instead of
 * 408. Load delays both timers alike, so it cannot reorder them.
 */

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

/**
 * Resolves once the server in this process has read what was written so far: on the loopback the
 * bytes are in its socket when write() returns, so the poll phase after the next one has read them
 * (a setImmediate runs right after a poll phase).
 */
async function serverHasRead(): Promise<void> {
  for (let hop = 0; hop < 2; hop++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A slow client: `head` at once; then, from when the server has read it, one byte of `drip` every
 * `everyMs` and `rest` at `restAtMs` (all timers set now, so they run in that order whatever the
 * load), unless the connection is closed first. Resolves with whether `rest` was sent.
 */
async function sendSlowly(
  socket: Socket,
  parts: { head: string; drip: string; everyMs: number; rest: string; restAtMs: number },
): Promise<boolean> {
  const { head, drip, everyMs, rest, restAtMs } = parts;
  if (drip.length * everyMs >= restAtMs) throw new Error('the drip must end before the rest is due');
  socket.write(head);
  await serverHasRead();
  const timers = [...drip].map((byte, index) =>
    setTimeout(
      () => {
        if (!socket.destroyed) socket.write(byte);
      },
      (index + 1) * everyMs,
    ),
  );
  return new Promise<boolean>((resolve) => {
    const last = setTimeout(() => {
      if (socket.destroyed) return resolve(false);
      socket.write(rest);
      resolve(true);
    }, restAtMs);
    socket.once('close', () => {
      for (const timer of [...timers, last]) clearTimeout(timer);
      resolve(false);
    });
  });
}

/** Resolves once `connection` has received `count` whole answers (status line and headers). */
function answers(connection: RawConnection, count: number): Promise<void> {
  const done = () => connection.received().split('\r\n\r\n').length - 1 >= count;
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (!done()) return;
      connection.socket.off('data', check);
      resolve();
    };
    connection.socket.on('data', check);
  });
}

const statusLines = (text: string) => text.match(/^HTTP\/1\.1 \d{3}/gm) ?? [];

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
      // Each drips a header line, and ends its headers on a timer due after the headers check has
      // come round (limit + one check interval), before the request time-out: were the headers
      // time-out not applied, or checked only at Node's default 30 s, the headers would complete
      // and /healthz answer 200 (the request time-out, due later, would not have cut them either).
      const endsHeadersAtMs = (HEADERS_TIMEOUT_MS + CHECK_EVERY_MS + REQUEST_TIMEOUT_MS) / 2;
      const finished = Promise.all(
        loris.map(({ socket }) =>
          sendSlowly(socket, {
            head: 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ',
            drip: 'a'.repeat(Math.floor(endsHeadersAtMs / 250) - 1),
            everyMs: 250,
            rest: '\r\n\r\n',
            restAtMs: endsHeadersAtMs,
          }),
        ),
      );
      // Meanwhile, ordinary clients get answers: at least one while all 30 hold their sockets (the
      // cut comes on the server's timer a second later; an answer needs only I/O).
      let allClosed = false;
      const closedAll = Promise.all(loris.map(({ closed }) => closed)).then((ms) => {
        allClosed = true;
        return ms;
      });
      let answeredWhileHeld = 0;
      let answered = 0;
      while (!allClosed) {
        const response = await fetch(`${running.url}/healthz`);
        expect(response.status).toBe(200);
        await response.text();
        answered += 1;
        if (loris.every(({ socket }) => !socket.destroyed && !socket.readableEnded)) answeredWhileHeld += 1;
      }
      const closedAfter = await closedAll;
      // Node answers 408 and closes; no loris got to end its headers.
      for (const { received } of loris) expect(statusLines(received())).toEqual(['HTTP/1.1 408']);
      expect(await finished).toEqual(Array(30).fill(false));
      expect(answeredWhileHeld).toBeGreaterThan(0);
      // A lower bound only (load can but lengthen the wait, so it cannot flake): it is what shows
      // the cut waited for the limit; no event of the server marks the limit's start.
      for (const ms of closedAfter) expect(ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      report(
        `slow-loris: 30 clients dripping headers closed after ${Math.min(...closedAfter)}-${Math.max(...closedAfter)} ms ` +
          `(HTTP_HEADERS_TIMEOUT_MS=${HEADERS_TIMEOUT_MS}); ${answered} other requests answered meanwhile, ` +
          `${answeredWhileHeld} while all 30 held their sockets`,
      );
    });

    it('cuts a client that sends its body too slowly after the request time-out', async () => {
      const slow = await open(running.url);
      const body = JSON.stringify({ username: 'someone', password: 'x'.repeat(40) });
      // The body ends on a timer due after the request check has come round: were the request
      // time-out not applied (or checked at Node's default 30 s), the login would be answered.
      const endsBodyAtMs = REQUEST_TIMEOUT_MS + CHECK_EVERY_MS + 1000;
      const dripped = body.slice(0, Math.floor(endsBodyAtMs / 250) - 1);
      const sent = sendSlowly(slow.socket, {
        head:
          'POST /api/v1/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
        drip: dripped,
        everyMs: 250,
        rest: body.slice(dripped.length),
        restAtMs: endsBodyAtMs,
      });
      const ms = await slow.closed;
      expect(statusLines(slow.received())).toEqual(['HTTP/1.1 408']);
      expect(await sent).toBe(false);
      // A lower bound only (it cannot flake): the cut waited for the limit.
      expect(ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      report(`slow body: closed after ${ms} ms (HTTP_REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS})`);
    });

    it('closes an idle keep-alive connection after the keep-alive time-out', async () => {
      const idle = await open(running.url);
      idle.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
      await answers(idle, 1);
      const answeredAt = performance.now();
      expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);
      expect(idle.received()).toMatch(/Keep-Alive: timeout=0?\.?\d+/i);
      // The client reuses the connection on a timer due a second after the server's idle timer
      // (set when it finished the answer, before this one): were the time-out not applied, the
      // second request would be answered on the same connection.
      let reused = false;
      const reuse = setTimeout(
        () => {
          if (idle.socket.destroyed || idle.socket.readableEnded) return;
          reused = true;
          idle.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
        },
        KEEP_ALIVE_TIMEOUT_MS + NODE_KEEP_ALIVE_BUFFER_MS + 1000,
      );
      await idle.closed;
      clearTimeout(reuse);
      const idleMs = Math.round(performance.now() - answeredAt);
      expect(reused).toBe(false);
      expect(statusLines(idle.received())).toEqual(['HTTP/1.1 200']);
      // A lower bound only (it cannot flake): the connection was kept for the limit.
      expect(idleMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
      report(
        `keep-alive: idle connection closed ${idleMs} ms after its last answer (HTTP_KEEP_ALIVE_TIMEOUT_MS=${KEEP_ALIVE_TIMEOUT_MS})`,
      );
    });
  });
}
