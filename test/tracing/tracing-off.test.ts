/**
 * Issue 31, "off by default and free when off": without an OTEL_* variable (or with the standard
 * switches saying off) the service loads no module of OpenTelemetry at all, so no request pays
 * for it; with one, the SDK is loaded (which shows the module log would see it).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tracingWanted } from '../../src/adapters/tracing/tracing-wanted.js';
import { ROOT, startService } from '../faults/support/child-service.js';

describe('tracingWanted', () => {
  it('is off without OTEL_* variables, on with any, off again when the standard switches say so', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ PATH: '/usr/bin', NODE_ENV: 'production', OTEL_: '' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'gatehouse' })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_SAMPLER: 'always_on' })).toBe(true);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'gatehouse', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'gatehouse', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

/** The module URLs the service resolved while starting and answering one request. */
async function modulesLoaded(env: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-tracing-off-'));
  const log = join(dir, 'modules.log');
  const service = await startService({
    DATA_DIR: join(dir, 'data'),
    MODULE_LOG: log,
    NODE_OPTIONS: `--import ${join(ROOT, 'test/support/module-log/register.mjs')}`,
    ...env,
  });
  try {
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  } finally {
    await service.stop();
  }
  const modules = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  await rm(dir, { recursive: true, force: true });
  return modules;
}

const openTelemetry = (modules: string[]) => modules.filter((url) => url.includes('@opentelemetry'));

describe('the service with tracing off loads nothing of OpenTelemetry', () => {
  it('no OTEL_* variable: no module of it', async () => {
    const modules = await modulesLoaded({});
    expect(modules.some((url) => /\/src\/boot\/main\.[jt]s$/.test(url))).toBe(true);
    expect(openTelemetry(modules)).toEqual([]);
  }, 60_000);

  it('OTEL_SDK_DISABLED=true beside other OTEL_* variables: none either', async () => {
    const modules = await modulesLoaded({ OTEL_SDK_DISABLED: 'true', OTEL_SERVICE_NAME: 'gatehouse' });
    expect(openTelemetry(modules)).toEqual([]);
  }, 60_000);

  it('an OTEL_* variable: the SDK and its instrumentations are loaded', async () => {
    // Nothing listens there: the export fails quietly, the service serves all the same.
    const modules = await modulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    const loaded = openTelemetry(modules).join('\n');
    expect(loaded).toContain('@opentelemetry/sdk-node');
    expect(loaded).toContain('@opentelemetry/instrumentation-pg');
  }, 60_000);
});
