import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  SsoInterpreterSettings,
  SsoTokenInterpreter,
  SsoTokenInterpreterFactory,
} from '../../domain/sso/sso-token-interpreter.port.js';
import { createClaimsInterpreter } from './claims-interpreter.js';

/**
 * Interpreters shipped with Gatehouse, by key. A Map, not an object: a specifier such as
 * `constructor` or `toString` must not find a member of Object.prototype and call it as a factory.
 */
export const BUILT_IN_INTERPRETERS: ReadonlyMap<string, SsoTokenInterpreterFactory> = new Map([
  ['claims', createClaimsInterpreter],
]);

export class InterpreterLoadError extends Error {
  constructor(specifier: string, reason: string, options?: { cause?: unknown }) {
    super(`SSO_TOKEN_INTERPRETER "${specifier}": ${reason}`, options);
    this.name = 'InterpreterLoadError';
  }
}

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
 * Resolves SSO_TOKEN_INTERPRETER at start-up: a built-in key, an npm package name or a path
 * (relative to the working directory). The module exports the factory as `default` or
 * `createInterpreter`. Any problem stops start-up with a message naming the specifier.
 */
export async function loadInterpreter(
  specifier: string,
  settings: SsoInterpreterSettings,
  cwd = process.cwd(),
): Promise<SsoTokenInterpreter> {
  let factory = BUILT_IN_INTERPRETERS.get(specifier);
  if (!factory) {
    let module: Record<string, unknown>;
    try {
      module = (await import(toImportable(specifier, cwd))) as Record<string, unknown>;
    } catch (error) {
      throw new InterpreterLoadError(
        specifier,
        `cannot be loaded (${(error as Error).message}). Built-in interpreters: ${[...BUILT_IN_INTERPRETERS.keys()].join(', ')}.`,
        { cause: error },
      );
    }
    const candidate = module.createInterpreter ?? module.default;
    if (typeof candidate !== 'function') {
      throw new InterpreterLoadError(
        specifier,
        'exports no factory function (`default` or `createInterpreter`).',
      );
    }
    factory = candidate as SsoTokenInterpreterFactory;
  }
  let interpreter: SsoTokenInterpreter;
  try {
    interpreter = await factory(settings);
  } catch (error) {
    throw new InterpreterLoadError(specifier, `its factory failed (${(error as Error).message}).`, {
      cause: error,
    });
  }
  if (!interpreter || typeof interpreter.interpret !== 'function' || typeof interpreter.name !== 'string') {
    throw new InterpreterLoadError(specifier, 'its factory must return { name: string, interpret(tokens) }.');
  }
  if (interpreter.endProviderSession !== undefined && typeof interpreter.endProviderSession !== 'function') {
    throw new InterpreterLoadError(specifier, 'endProviderSession must be a function when present.');
  }
  return interpreter;
}
