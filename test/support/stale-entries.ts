import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** How long a run's leftovers are kept: a concurrent run may still be using a fresh one. */
const STALE_AFTER_MS = 24 * 3600 * 1000;

/**
 * Removes the entries of `dir` (files or folders) that `removable` picks and that nothing has
 * touched for a day: what runs killed before their teardown, or older versions, left behind.
 */
export function removeStaleEntries(dir: string, removable: (name: string) => boolean): void {
  for (const name of readdirSync(dir)) {
    if (!removable(name)) continue;
    const path = join(dir, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_AFTER_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}
