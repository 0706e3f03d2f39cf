import type { SessionSide } from '../../domain/session/session-side.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { importModule } from './import-module.js';

/** What SESSION_STORE_MODULE names cannot serve as a session store; the message names the variable. */
export class SessionStoreModuleError extends Error {
  constructor(specifier: string, reason: string, options?: { cause?: unknown }) {
    super(`SESSION_STORE_MODULE "${specifier}": ${reason}`, options);
    this.name = 'SessionStoreModuleError';
  }
}

/** What a module's factory is called with: the environment, so it finds its own settings. */
export type SessionStoreFactory = (
  environment: Readonly<Record<string, string>>,
) => SessionSide | Promise<SessionSide>;

const SESSION_OPERATIONS = [
  'create',
  'findByTokenHash',
  'touch',
  'deleteByTokenHash',
  'listForUser',
  'deleteAllForUser',
  'deleteByHandle',
  'deleteBySso',
  'evictBeyond',
] as const;
const THROTTLE_OPERATIONS = ['reserve', 'release', 'reset'] as const;
/** Each optional capability, with the operation a store that declares it must have. */
const SESSION_CAPABILITIES = {
  purge: 'purgeExpired',
  paging: 'listPage',
  endAll: 'deleteAll',
  lookupWithUser: 'findSessionWithUser',
  replace: 'replaceSession',
} as const;
const THROTTLE_CAPABILITIES = {
  purge: 'purgeOlderThan',
  settle: 'resetAndRelease',
  reserveEach: 'reserveEach',
} as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** What a part (`sessions`, `throttle`) lacks: its operations, and each declared capability's. */
function partProblems(
  name: string,
  part: unknown,
  operations: readonly string[],
  capabilities: Readonly<Record<string, string>>,
): string[] {
  if (!isObject(part)) return [`${name} is missing`];
  const problems = operations
    .filter((operation) => typeof part[operation] !== 'function')
    .map((operation) => `${name}.${operation} is not a function`);
  const declared = part.capabilities;
  if (!isObject(declared)) return [...problems, `${name}.capabilities is not an object (give {} for none)`];
  for (const [capability, value] of Object.entries(declared)) {
    if (value === undefined) continue;
    const operation = capabilities[capability];
    if (!operation) problems.push(`${name}.capabilities.${capability} is no capability Gatehouse knows`);
    else if (!isObject(value) || typeof value[operation] !== 'function')
      problems.push(`${name}.capabilities.${capability}.${operation} is not a function`);
  }
  return problems;
}

/** Why `value` is not a SessionSide (empty when it is one), checked by shape: any copy of the types. */
export function sessionSideProblems(value: unknown): string[] {
  if (!isObject(value)) return ['it is not an object'];
  const problems = [
    ...partProblems('sessions', value.sessions, SESSION_OPERATIONS, SESSION_CAPABILITIES),
    ...partProblems('throttle', value.throttle, THROTTLE_OPERATIONS, THROTTLE_CAPABILITIES),
  ];
  if (typeof value.close !== 'function') problems.push('close is not a function');
  if (value.isReady !== undefined && typeof value.isReady !== 'function')
    problems.push('isReady is not a function (leave it out when the store has no readiness check)');
  return problems;
}

/**
 * Opens the deployment's own session store: imports the module (a package name, or a path from
 * `cwd`), calls its default export with the environment, and checks that what it gives is a
 * SessionSide. A module that cannot be loaded or gives something else stops start-up, naming the
 * variable; a store that cannot open (its database unreachable) is SERVICE_UNAVAILABLE.
 */
export async function openSessionStoreModule(
  specifier: string,
  environment: Readonly<Record<string, string>>,
  cwd = process.cwd(),
): Promise<SessionSide> {
  let module: Record<string, unknown>;
  try {
    module = await importModule(specifier, cwd);
  } catch (error) {
    throw new SessionStoreModuleError(specifier, `cannot be loaded (${(error as Error).message})`, {
      cause: error,
    });
  }
  const factory = module.default;
  if (typeof factory !== 'function') {
    throw new SessionStoreModuleError(
      specifier,
      'its default export must be a function of the environment returning the session store (SessionSide)',
    );
  }
  let side: unknown;
  try {
    side = await (factory as SessionStoreFactory)(environment);
  } catch (error) {
    throw new DomainError(
      'SERVICE_UNAVAILABLE',
      `The session store of SESSION_STORE_MODULE "${specifier}" did not open.`,
      { cause: error, retryAfterS: 5 },
    );
  }
  const problems = sessionSideProblems(side);
  if (problems.length > 0) {
    // Whatever it opened is let go, as far as it can be.
    if (isObject(side) && typeof side.close === 'function')
      await Promise.resolve(side.close()).catch(() => undefined);
    throw new SessionStoreModuleError(
      specifier,
      `its default export did not give a SessionSide: ${problems.join('; ')}`,
    );
  }
  return side as SessionSide;
}
