import { BUILT_IN_INTERPRETER } from '../../domain/sso/provider-registration.js';
import type {
  SsoInterpreterSettings,
  SsoTokenInterpreter,
  SsoTokenInterpreterFactory,
} from '../../domain/sso/sso-token-interpreter.port.js';
import { importModule } from '../modules/import-module.js';
import { createClaimsInterpreter } from './claims-interpreter.js';

/**
 * Interpreters shipped with Gatehouse, by key. A Map, not an object: a specifier such as
 * `constructor` or `toString` must not find a member of Object.prototype and call it as a factory.
 */
export const BUILT_IN_INTERPRETERS: ReadonlyMap<string, SsoTokenInterpreterFactory> = new Map([
  [BUILT_IN_INTERPRETER, createClaimsInterpreter],
]);

export class InterpreterLoadError extends Error {
  constructor(specifier: string, reason: string, options?: { cause?: unknown }) {
    super(`SSO_TOKEN_INTERPRETER "${specifier}": ${reason}`, options);
    this.name = 'InterpreterLoadError';
  }
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
      module = await importModule(specifier, cwd);
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
