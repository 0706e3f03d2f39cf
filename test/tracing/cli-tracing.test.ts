/**
 * A `gatehouse` command run in its own process (DATABASE_URL) with OTEL_* set is traced as the
 * service is: its administrative use case's span, with the store's calls under it (the pg
 * instrumentation), sent to a real OTLP receiver before the command ends; nothing secret in them.
 */
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
    const started = performance.now();
    const result = await runGatehouse(['user', 'show', 'cli-traced'], {
      env: { ...target.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('cli-traced');
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 60_000);
});
