#!/usr/bin/env node
// The `gatehouse` command: `gatehouse serve` starts the service as `npm start` does; every other
// command is the administration command. Both run the compiled code in dist/: build it first.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);

if (!existsSync(entry)) {
  process.stderr.write(
    'error USAGE: Gatehouse is not built (dist/src/cli/main.js is missing).\n' +
      'Run "npm run build" in the Gatehouse folder first, or use "npm run gatehouse -- <command>".\n',
  );
  process.exit(2);
}

if (process.argv[2] === 'serve') {
  // The node flags and entry of package.json's `start` script, so both start the same service.
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const tokens = manifest.scripts.start.split(/\s+/).slice(1);
  const script = new URL(`../${tokens.pop()}`, import.meta.url);
    // A path, not the URL's percent-encoded pathname: the folder may hold a space or an accent.
  const child = spawn(process.execPath, [...tokens, fileURLToPath(script)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else {
  await import(entry.href);
}
