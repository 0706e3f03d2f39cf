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
  // A collector that refuses or fails the last export must not fail what the process did (a
  // command's answer, a clean stop): what it did not take is dropped, as the SDK drops any batch
  // it cannot send (its own diagnostics, OTEL_LOG_LEVEL, say why).
  const shutdown = () => sdk.shutdown().catch(() => undefined);
  // Spans still queued are sent before the process ends (SIGTERM drains, then exits).
  process.once('beforeExit', () => void shutdown());
  tracingShutdown = shutdown;
}

let tracingShutdown: (() => Promise<void>) | null = null;

/**
 * Sends the spans still queued; a no-op when tracing is off. With `withinMs`, waits no longer than
 * that for a collector that does not answer (what is not sent by then is dropped).
 */
export async function flushTracing(withinMs?: number): Promise<void> {
  const shutdown = tracingShutdown?.();
  if (!shutdown) return;
  if (withinMs === undefined) return shutdown;
  await Promise.race([shutdown, new Promise((resolve) => setTimeout(resolve, withinMs).unref())]);
}
