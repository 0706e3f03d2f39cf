import { setFlagsFromString } from 'node:v8';
import { flushTracing, startTracingIfWanted } from '../boot/tracing.js';

/**
 * Entry point of the `gatehouse` command (bin/gatehouse.js, `npm run gatehouse -- ...`).
 * The exit status is set, not forced, so everything written to a pipe is flushed first.
 */

// A command lives for a few queries: the embedded database's WebAssembly runs on V8's baseline
// compiler only, without the optimising tier-up, which costs more than it saves in a process this
// short (a third of the database's start; an import of thousands of users is no slower either:
// docs/performance.md). The service's own process keeps the default.
setFlagsFromString('--liftoff-only');

// With an OTEL_* variable a command is traced as the service is (its administrative use case, the
// store's calls): the SDK starts before the command's modules import the drivers, and its spans
// are sent before the process ends. Otherwise nothing of OpenTelemetry is loaded.
await startTracingIfWanted();
const { runCli } = await import('./cli.js');

const status = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
// A collector that does not answer must not hold the command: its spans get a second, no more.
await Promise.race([flushTracing(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
process.exitCode = status;
// Should a stray handle keep the process alive, it still ends; unref'd, this timer alone never does.
setTimeout(() => process.exit(status), 5000).unref();
