import { DomainError, type FieldError } from '../shared/domain-error.js';
import { ALL_USER_LEVELS, isUserLevel, USER_LEVELS, type UserLevel } from './user.js';
import { usernameViolation } from './username.js';

/**
 * Rules every new account must satisfy, whoever creates it (`gatehouse user add`, an import):
 * pure functions, so the command, the import and tests share one definition.
 */

export const USER_LEVEL_NAMES: Readonly<Record<UserLevel, string>> = Object.freeze({
  [USER_LEVELS.END_USER]: 'end user',
  [USER_LEVELS.DEPARTMENT_ADMIN]: 'department admin',
  [USER_LEVELS.GROUP_ADMIN]: 'group admin',
  [USER_LEVELS.TENANT_ADMIN]: 'tenant admin',
  [USER_LEVELS.SYSTEM_ADMIN]: 'system admin',
});

/** Spec 2.3 `access_type`: 0 Normal, 1 Restricted, 3 Super. */
export const ACCESS_TYPES: readonly number[] = Object.freeze([0, 1, 3]);

/** Longest identifier, username or id the store accepts. */
export const IDENTIFIER_MAX_LENGTH = 200;

export interface IdsNeeded {
  tenant: boolean;
  group: boolean;
}

/**
 * Contract section 5, read as "what an account of this level belongs to": an end user, a
 * department admin and a group admin belong to a group of a tenant; a tenant admin to a tenant;
 * a system admin to nothing. (An end user's `user_id` is always there: it is the account's own.)
 */
export function idsNeededFor(level: UserLevel): IdsNeeded {
  if (level <= USER_LEVELS.GROUP_ADMIN) return { tenant: true, group: true };
  if (level === USER_LEVELS.TENANT_ADMIN) return { tenant: true, group: false };
  return { tenant: false, group: false };
}

export function describeLevel(level: UserLevel): string {
  return `${USER_LEVEL_NAMES[level]} (level ${level})`;
}

function aLevel(level: UserLevel): string {
  return `${/^[aeiou]/.test(USER_LEVEL_NAMES[level]) ? 'an' : 'a'} ${describeLevel(level)}`;
}

const LEVEL_LIST = ALL_USER_LEVELS.map((level) => `${level} (${USER_LEVEL_NAMES[level]})`).join(', ');

/** C0 controls, DEL and C1 controls: nothing an identifier needs, everything a terminal obeys. */
export function isControlCharacter(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

export function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    if (isControlCharacter(value.charCodeAt(index))) return true;
  }
  return false;
}

/**
 * A tenant id, group id, backend name, user id or username: 1 to 200 characters, no control
 * characters, no leading or trailing white space (which would make two look-alike accounts).
 */
export function identifierViolation(path: string, value: string): FieldError | null {
  if (value.length === 0) return { path, message: 'must not be empty' };
  if (value.length > IDENTIFIER_MAX_LENGTH) {
    return { path, message: `must have at most ${IDENTIFIER_MAX_LENGTH} characters` };
  }
  if (hasControlCharacter(value)) return { path, message: 'must not contain control characters' };
  if (value.trim() !== value) return { path, message: 'must not start or end with white space' };
  return null;
}

export interface UserPlacement {
  username: string;
  userLevel: number;
  tenantId: string | null;
  groupId: string | null;
  userId?: string | null;
  backendName?: string | null;
  accessType?: number | null;
}

/**
 * Everything that can be said about a new account without the store: a known level, the ids that
 * level needs (and none it has no use for), well-formed identifiers, a known access type.
 * Paths are the import keys (`user_level`, `tenant_id`, ...).
 */
export function newUserViolations(user: UserPlacement): FieldError[] {
  // A username has stricter rules of its own: it is what people read and type to tell accounts apart.
  const usernameError = usernameViolation('username', user.username);
  const errors: FieldError[] = usernameError ? [usernameError] : [];
  const identifiers: Array<[string, string | null | undefined]> = [
    ['tenant_id', user.tenantId],
    ['group_id', user.groupId],
    ['user_id', user.userId],
    ['backend', user.backendName],
  ];
  for (const [path, value] of identifiers) {
    if (value === null || value === undefined) continue;
    const violation = identifierViolation(path, value);
    if (violation) errors.push(violation);
  }
  if (!Number.isInteger(user.userLevel) || !isUserLevel(user.userLevel)) {
    errors.push({ path: 'user_level', message: `must be one of ${LEVEL_LIST}` });
  } else {
    const level = user.userLevel;
    const needed = idsNeededFor(level);
    const checks: Array<[string, boolean, string | null]> = [
      ['tenant_id', needed.tenant, user.tenantId],
      ['group_id', needed.group, user.groupId],
    ];
    for (const [path, isNeeded, value] of checks) {
      if (isNeeded && value === null) {
        errors.push({ path, message: `is required for ${aLevel(level)}` });
      } else if (!isNeeded && value !== null) {
        errors.push({ path, message: `must not be set for ${aLevel(level)}` });
      }
    }
  }
  if (user.accessType !== null && user.accessType !== undefined && !ACCESS_TYPES.includes(user.accessType)) {
    errors.push({ path: 'access_type', message: 'must be 0 (normal), 1 (restricted) or 3 (super)' });
  }
  return errors;
}

/** Throws INVALID_REQUEST naming the first rule broken (every one is listed in `errors`). */
export function assertValidNewUser(user: UserPlacement): void {
  const errors = newUserViolations(user);
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new DomainError('INVALID_REQUEST', `${first.path}: ${first.message}`, { errors });
  }
}
