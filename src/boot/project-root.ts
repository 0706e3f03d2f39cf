import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json, found upwards from this file, so the same code finds
 * `migrations/` whether it runs from `src/` (tests, tsx) or from `dist/src/` (npm start).
 */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'migrations'))) return dir;
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('Gatehouse: cannot find the project folder (package.json and migrations/).');
    dir = parent;
  }
}
