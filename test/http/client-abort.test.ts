/**
 * Issue 14, finding 7: a client that drops mid-body is not a server error. It was logged as an
 * unhandled 500 with a stack, at error level, so anyone could fill the error log and page the
 * on-call. Now: one info line (status 499, `client_aborted`), one count in the metrics.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { startTestServer, TestClient, type TestServer } from '../support/test-server.js';

/**
 * Sends the head, waits until the server has taken the request in (its `100 Continue`: the
 * handler is about to read the body), sends part of the declared body and drops the connection.
 */
async function dropMidBody(url: string, path: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const goOn = new Promise<string>((resolve) =>
    socket.once('data', (chunk) => resolve(chunk.toString('latin1'))),
  );
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 1000\r\nExpect: 100-continue\r\n\r\n',
  );
  expect(await goOn).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
  await new Promise<void>((resolve) => socket.write('{"username"', () => resolve()));
  socket.destroy();
}

async function settled(server: TestServer, count: number): Promise<void> {
  for (let i = 0; i < 100 && server.logs.filter((line) => line.msg === 'request').length < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const target of TRANSPORT_TARGETS) {
  describe(`a client that drops mid-body [${target}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store: target, env: { METRICS_ON_MAIN_PORT: 'true' } });
    });
    afterAll(() => server?.close());

    it('is logged once at info as client_aborted (499), never as an error or a 500, and counted', async () => {
      const before = server.logs.length;
      const requestsBefore = server.logs.filter((line) => line.msg === 'request').length;
      // The routes that read a body before anything else.
      for (const path of ['/api/v1/login/', '/api/v1/logout/', '/api/v1/login/']) {
        await dropMidBody(server.url, path);
      }
      await settled(server, requestsBefore + 3);
      const lines = server.logs.slice(before);
      expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
      expect(lines.filter((line) => line.status === 500)).toEqual([]);
      expect(lines.some((line) => 'err' in line || 'stack' in line)).toBe(false);
      const aborted = lines.filter((line) => line.event === 'client_aborted');
      expect(aborted).toHaveLength(3);
      for (const line of aborted) expect(line).toMatchObject({ level: 30, status: 499, msg: 'request' });
      const metrics = (await new TestClient(server.url).get('/metrics')).text;
      expect(metrics).toMatch(/^gatehouse_client_aborts_total 3$/m);
    });
  });
}
