import { SsoInterpretationError } from './sso-interpretation-error.js';
import type { SsoIdentity } from './sso-token-interpreter.port.js';

const USERNAME_MAX = 200;

function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    if (value.charCodeAt(index) < 0x20) return true;
  }
  return false;
}

/**
 * The service's own rules over whatever an interpreter returns, so a customer package cannot
 * bypass them: a non-empty username of sane length, exactly one non-empty group id.
 */
export function checkSsoIdentity(identity: unknown): { username: string; groupId: string } {
  const candidate = identity as Partial<SsoIdentity> | null | undefined;
  const username = typeof candidate?.username === 'string' ? candidate.username.trim() : '';
  if (username.length === 0 || username.length > USERNAME_MAX || hasControlCharacter(username)) {
    throw new SsoInterpretationError(
      'SSO_INVALID_USERNAME',
      'The OpenID provider returned no valid username.',
    );
  }
  const groups = Array.isArray(candidate?.groupIds)
    ? candidate.groupIds.filter((group): group is string => typeof group === 'string' && group.trim() !== '')
    : [];
  const distinct = [...new Set(groups.map((group) => group.trim()))];
  if (distinct.length > 1) {
    throw new SsoInterpretationError(
      'SSO_MULTI_GROUPS',
      'The OpenID provider returned more than one group id.',
    );
  }
  if (distinct.length === 0) {
    throw new SsoInterpretationError(
      'SSO_INVALID_GROUPID_AND_USERNAME',
      'The OpenID provider returned no group id for this user.',
    );
  }
  return { username, groupId: distinct[0]! };
}
