/**
 * The service's process entry: `node --max-semi-space-size=4 --max-old-space-size=128
 * dist/src/start.cjs`, which is what `npm start` and the benchmark run (docs/operations.md,
 * docs/performance.md). The two flags keep V8's heap small under load at the same throughput.
 *
 * CommonJS on purpose: it runs before Node's ES module loader first uses libuv's thread pool, and
 * the pool reads UV_THREADPOOL_SIZE once, when it starts. Password hashing (argon2id, 19 MiB a
 * hash) runs on that pool, so its size is both how many hashes run at once and how many 19 MiB
 * buffers the process keeps: one thread per core hashes as fast as Node's default of four on two
 * cores, with 40 MB less resident memory (measured in docs/performance.md). A value set in the
 * environment wins.
 *
 * Tracing (OTEL_* variables) starts next, before the service's modules load: its
 * instrumentations patch `pg`, `ioredis` and `pino` as they are first imported.
 */
import os = require('node:os');

process.env.UV_THREADPOOL_SIZE ||= String(Math.max(2, os.availableParallelism()));

void (async () => {
  try {
    await (await import('./boot/tracing.js')).startTracingIfWanted();
  } catch (error) {
    process.stderr.write(
      `Gatehouse failed to start tracing: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
  await import('./main.js');
})();
