import { DataDirInUseError } from '../adapters/sql/data-dir-lock.js';
import { translateStoreError } from '../adapters/sql/store-errors.js';
import { isDomainError } from '../domain/shared/domain-error.js';
import { ConfigError } from './config/config.js';

/** A failure as the command reports it: a configuration problem, a held DATA_DIR or anything else. */
export type CommandFailure =
  | { kind: 'config'; problems: readonly string[] }
  | { kind: 'data-dir-in-use'; message: string }
  | { kind: 'other'; error: unknown };

/**
 * Names what went wrong in the terms of the command's report: the adapters' own errors (the lock
 * of DATA_DIR, a database error) are recognised here, so the command imports no adapter. A
 * database error becomes the coded domain error the service would answer with.
 */
export function commandFailure(error: unknown): CommandFailure {
  if (error instanceof ConfigError) return { kind: 'config', problems: error.problems };
  if (error instanceof DataDirInUseError) return { kind: 'data-dir-in-use', message: error.message };
  if (isDomainError(error)) return { kind: 'other', error };
  try {
    translateStoreError(error);
  } catch (translated) {
    return { kind: 'other', error: translated };
  }
  return { kind: 'other', error };
}

export { currentHolder, DataDirInUseError } from '../adapters/sql/data-dir-lock.js';
