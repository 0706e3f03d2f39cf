import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The module entry a package folder names: `exports["."]` (import/default), then `main`, then index.js. */
function packageEntry(directory: string): string {
  let manifest: { exports?: unknown; main?: unknown } = {};
  try {
    manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    // No (readable) package.json: a plain folder with an index.js.
  }
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target;
    if (target && typeof target === 'object' && !Array.isArray(target)) {
      const conditions = target as Record<string, unknown>;
      return pick(conditions['.']) ?? pick(conditions.import) ?? pick(conditions.default);
    }
    return undefined;
  };
  const entry = pick(manifest.exports) ?? (typeof manifest.main === 'string' ? manifest.main : 'index.js');
  return resolve(directory, entry);
}

/**
 * A path (relative to `cwd`, or absolute) becomes a file URL; a folder is resolved through its
 * package.json like an installed package (ESM `import()` refuses directory URLs). Anything else is
 * a package name, resolved by Node from Gatehouse's own location.
 */
function toImportable(specifier: string, cwd: string): string {
  if (!(specifier.startsWith('.') || isAbsolute(specifier))) return specifier;
  let path = resolve(cwd, specifier);
  try {
    if (statSync(path).isDirectory()) path = packageEntry(path);
  } catch {
    // Missing: import() reports it, naming the path.
  }
  return pathToFileURL(path).href;
}

/**
 * Imports what an operator names by a module specifier (an interpreter, a session store): a
 * package name, or a path from the working directory `cwd`.
 */
export async function importModule(specifier: string, cwd: string): Promise<Record<string, unknown>> {
  return (await import(toImportable(specifier, cwd))) as Record<string, unknown>;
}
