import { runCli } from './cli.js';

/**
 * Entry point of the `gatehouse` command (bin/gatehouse.js, `npm run gatehouse -- ...`).
 * The exit status is set, not forced, so everything written to a pipe is flushed first.
 */
const status = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
process.exitCode = status;
// Should a stray handle keep the process alive, it still ends; unref'd, this timer alone never does.
setTimeout(() => process.exit(status), 5000).unref();
