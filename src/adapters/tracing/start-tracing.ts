import { register } from 'node:module';
import type { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Starts the OpenTelemetry SDK for the whole process, configured by the standard `OTEL_*`
 * variables alone (exporter, endpoint, protocol `http/protobuf`, `http/json` or `grpc`, service
 * name, sampler, resource attributes): the SDK reads them itself. Only traces: no metric or log
 * exporter is started (Prometheus has the metrics, stdout the logs).
 *
 * It must run before `pg`, `ioredis` and `pino` are first imported: the instrumentations
 * patch them as they load. Gatehouse is an ES module, so the loader hook of
 * `@opentelemetry/instrumentation` (import-in-the-middle) is registered first; without it an
 * `import pg from 'pg'` would never be seen.
 */
export async function startTracing(): Promise<{ shutdown(): Promise<void> }> {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const [{ NodeSDK: Sdk }, { PgInstrumentation }, { IORedisInstrumentation }, { PinoInstrumentation }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-ioredis'),
      import('@opentelemetry/instrumentation-pino'),
    ]);
  const { resources } = await import('@opentelemetry/sdk-node');
  const sdk: NodeSDK = new Sdk({
    // The process detector's `process.command_args` would put a command's arguments (a username:
    // `gatehouse user show ann`) in every export: the process is described without them.
    resourceDetectors: [resources.envDetector, resources.hostDetector, resources.osDetector],
    resource: resources.resourceFromAttributes({
      'process.pid': process.pid,
      'process.runtime.name': 'nodejs',
      'process.runtime.version': process.versions.node,
    }),
    instrumentations: [
      // No http instrumentation: the server span of each request is Gatehouse's own
      // (traced-http-core.ts), cheaper by far, and the provider calls carry the trace on
      // themselves (traced-provider-fetch.ts). A pool's connect is no span of its own: the query
      // that waited for it shows the wait.
      new PgInstrumentation({ enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
      // Commands are recorded by name only: a key names a session (its token's hash).
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
      // Log lines of a traced request carry its trace id; the lines themselves stay on stdout.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
