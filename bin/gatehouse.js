#!/usr/bin/env node
// The `gatehouse` administration command. It runs the compiled code in dist/: build it first.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);

if (!existsSync(entry)) {
  process.stderr.write(
    'error USAGE: Gatehouse is not built (dist/src/cli/main.js is missing).\n' +
      'Run "npm run build" in the Gatehouse folder first, or use "npm run gatehouse -- <command>".\n',
  );
  process.exit(2);
}

await import(entry.href);
