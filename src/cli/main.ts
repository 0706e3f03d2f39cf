import { setFlagsFromString } from 'node:v8';
import { runCli } from './cli.js';

/**
 * Entry point of the `gatehouse` command (bin/gatehouse.js, `npm run gatehouse -- ...`).
 * The exit status is set, not forced, so everything written to a pipe is flushed first.
 */

// A command lives for a few queries: the embedded database's WebAssembly runs on V8's baseline
// compiler only, without the optimising tier-up, which costs more than it saves in a process this
// short (a third of the database's start; an import of thousands of users is no slower either:
// docs/performance.md). The service's own process keeps the default.
setFlagsFromString('--liftoff-only');

const status = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
process.exitCode = status;
// Should a stray handle keep the process alive, it still ends; unref'd, this timer alone never does.
setTimeout(() => process.exit(status), 5000).unref();
