/**
 * Issue 31, the embedding facade: an app that embeds Gatehouse and starts the SDK with the
 * package's `tracing` entry (`node --import .../tracing`) gets the same spans as the service: the
 * server span of a login with its use case and argon2 under it, and a span per administrative
 * command it ran through the facade's `admin`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../faults/support/child-service.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { dieWithTestProcess } from '../support/reaper.js';

const PASSWORD = 'an embedded passphrase 31';

describe('an embedding app started with the tracing entry', () => {
  let receiver: OtlpReceiver;
  let dir: string;
  let child: ReturnType<typeof spawn>;
  let url: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dir = await mkdtemp(join(tmpdir(), 'gatehouse-embedded-tracing-'));
    child = dieWithTestProcess(
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--import',
          join(ROOT, 'src/tracing.ts'),
          join(ROOT, 'test/fixtures/tracing/embedder.ts'),
        ],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            DATA_DIR: join(dir, 'data'),
            LOG_LEVEL: 'warn',
            EMBEDDER_PASSWORD: PASSWORD,
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_SERVICE_NAME: 'embedding-app',
            OTEL_BSP_SCHEDULE_DELAY: '50',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    );
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const match = /listening (\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the embedder exited (${code}): ${stderr}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('its administration and a login through its API are traced', async () => {
    const login = await fetch(`${url}/api/v1/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'embedded-erika', password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const named = (name: string) => (span: ReceivedSpan) => span.name === name;
    const spans = await receiver.waitFor(
      (all) => all.some(named('POST /api/v1/login/')) && all.some(named('gatehouse.admin.users.add')),
    );
    const server = spans.find(named('POST /api/v1/login/'))!;
    expect(server.resource['service.name']).toBe('embedding-app');
    const useCase = spans.find(
      (span) => span.name === 'gatehouse.login.password' && span.parentSpanId === server.spanId,
    )!;
    expect(useCase.attributes).toMatchObject({
      'gatehouse.outcome': 'ok',
      'gatehouse.tenant_id': 'tenant-e',
    });
    expect(
      spans.some((span) => span.name === 'gatehouse.password.verify' && span.parentSpanId === useCase.spanId),
    ).toBe(true);
    const added = spans.find(named('gatehouse.admin.users.add'))!;
    expect(added.attributes).toMatchObject({
      'gatehouse.outcome': 'ok',
      'gatehouse.tenant_id': 'tenant-e',
      'enduser.id': 'user-e1',
    });
    expect(spans.some(named('gatehouse.admin.directory.addTenant'))).toBe(true);
    const exported = receiver.bodies.map((body) => body.toString('utf8')).join('\n');
    for (const secret of [PASSWORD, 'embedded-erika']) expect(exported.includes(secret), secret).toBe(false);
  });
});
