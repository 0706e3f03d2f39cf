import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The bundled list sits next to this module in the source tree. `tsc` does not copy .txt files,
 * so from the compiled module (dist/src/adapters/password/) the list is found in the source tree.
 */
const CANDIDATES = ['./common-passwords.txt', '../../../../src/adapters/password/common-passwords.txt'];

let cached: ReadonlySet<string> | undefined;

/** Parses the list format: one lower-cased password a line; blank lines and `#` lines are skipped. */
export function parseCommonPasswords(text: string): ReadonlySet<string> {
  const passwords = new Set<string>();
  for (const line of text.split('\n')) {
    const entry = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (entry === '' || entry.startsWith('#')) continue;
    passwords.add(entry.toLowerCase());
  }
  return passwords;
}

/**
 * The bundled list of common passwords (lower-cased). Read once; later calls share the set.
 * `moduleUrl` is for tests: it stands for this module's own URL.
 */
export function loadCommonPasswords(moduleUrl: string | URL = import.meta.url): ReadonlySet<string> {
  const useCache = moduleUrl === import.meta.url;
  if (useCache && cached) return cached;
  const tried: string[] = [];
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, moduleUrl));
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        tried.push(path);
        continue;
      }
      throw error;
    }
    const passwords = parseCommonPasswords(text);
    if (passwords.size === 0) throw new Error(`The list of common passwords at ${path} is empty`);
    if (useCache) cached = passwords;
    return passwords;
  }
  throw new Error(`The list of common passwords was not found; looked for ${tried.join(', ')}`);
}
