import { tracingWanted } from '../adapters/tracing/tracing-wanted.js';

export { tracingWanted };

/**
 * Called by the process entry (start.cts) before anything else is imported: when an `OTEL_*`
 * variable asks for traces, the SDK starts here, so that the instrumentations see `pg`,
 * `ioredis` and `pino` load. Otherwise the SDK is never imported.
 */
export async function startTracingIfWanted(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!tracingWanted(env)) return;
  const { startTracing } = await import('../adapters/tracing/start-tracing.js');
  const sdk = await startTracing();
  // Spans still queued are sent before the process ends (SIGTERM drains, then exits).
  process.once('beforeExit', () => void sdk.shutdown());
  tracingShutdown = () => sdk.shutdown();
}

let tracingShutdown: (() => Promise<void>) | null = null;

/** Sends the spans still queued; a no-op when tracing is off. */
export async function flushTracing(): Promise<void> {
  await tracingShutdown?.();
}
