/**
 * A `gatehouse` command run in its own process (DATABASE_URL) with OTEL_* set is traced as the
 * service is: its administrative use case's span, with the store's calls under it (the pg
 * instrumentation), sent to a real OTLP receiver before the command ends; nothing secret in them.
 */
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliTarget, openCliTarget, runGatehouse } from '../cli/cli-support.js';
import { pgEnabled } from '../support/databases.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';

const PASSWORD = 'a traced command passphrase 31';

describe.runIf(pgEnabled)('a gatehouse command in its own process, traced', () => {
  let receiver: OtlpReceiver;
  let target: CliTarget;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    target = await openCliTarget('postgres');
  }, 60_000);

  afterAll(async () => {
    await target?.close();
    await receiver?.close();
  });

  it('sends the span of its use case, the store calls under it, before it exits', async () => {
    const result = await runGatehouse(['user', 'add', 'cli-traced', '--level', '16', '--password-stdin'], {
      input: `${PASSWORD}\n`,
      env: {
        ...target.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'gatehouse-command',
      },
    });
    expect(result.code, result.stderr).toBe(0);
    // Received before the command ended: no waiting here.
    const add = receiver.spans.find((span) => span.name === 'gatehouse.admin.users.add');
    expect(add?.attributes).toMatchObject({ 'gatehouse.outcome': 'ok', 'enduser.id': expect.any(String) });
    const queries = receiver.spans.filter(
      (span) => span.traceId === add!.traceId && /^pg\.query/.test(span.name),
    );
    expect(queries.length).toBeGreaterThan(0);
    expect(receiver.spans.some((span) => span.name === 'gatehouse.password.hash')).toBe(true);
    const exported = receiver.bodies.map((body) => body.toString('utf8')).join('\n');
    expect(exported).not.toContain(PASSWORD);
    // Not even in the resource (the process's command line would name the user).
    expect(exported).not.toContain('cli-traced');
  }, 60_000);

  it('is not held by a collector that does not answer', async () => {
    // A collector that takes the connection and never answers, and an export time-out far beyond
    // what the command may take: held by its export, the command would last that long.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const timed = async (endpoint: string) => {
      const started = performance.now();
      const result = await runGatehouse(['user', 'show', 'cli-traced'], {
        env: {
          ...target.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_EXPORTER_OTLP_TIMEOUT: '120000',
        },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('cli-traced');
      return performance.now() - started;
    };
    try {
      // The same command against a collector that answers: what it takes on this machine today.
      const answered = await timed(receiver.url);
      const unanswered = await timed(`http://127.0.0.1:${port}`);
      // A second for the flush, and the exit's own 5 s bound, with room for a busy machine.
      expect(unanswered - answered).toBeLessThan(30_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 180_000);

  it('answers and exits 0 when the collector refuses the export', async () => {
    // This receiver takes JSON only: the default protobuf export is answered 415.
    const result = await runGatehouse(['user', 'show', 'cli-traced'], {
      env: { ...target.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('cli-traced');
    expect(result.stderr).not.toContain('INTERNAL_ERROR');
  }, 60_000);
});
