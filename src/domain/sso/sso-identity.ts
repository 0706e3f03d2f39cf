import { ssoUsername } from '../user/username.js';
import { SsoInterpretationError } from './sso-interpretation-error.js';
import type { SsoIdentity } from './sso-token-interpreter.port.js';

/** A group id as sent: only ASCII spaces at the ends go; control, format or non-ASCII white space refuses it. */
function groupIdOf(entry: string): string | null {
  const groupId = entry.replace(/^ +| +$/g, '');
  return /[\p{Cc}\p{Cf}]|[^\S ]/u.test(groupId) ? null : groupId;
}

function noMatch(): SsoInterpretationError {
  return new SsoInterpretationError(
    'SSO_INVALID_GROUPID_AND_USERNAME',
    'The OpenID provider returned no valid group id for this user.',
  );
}

/**
 * The service's own rules over whatever an interpreter returns, so a customer package cannot bypass
 * them: a username that `ssoUsername` accepts (only ASCII spaces trimmed at the ends; no other
 * white space, no control, format or invisible character), and exactly one group id, every entry of
 * the list a string (`[g1, 5, null]` is refused, not read as `g1`). Blank entries are ignored. The
 * username is matched under its canonical form.
 */
export function checkSsoIdentity(identity: unknown): { username: string; groupId: string } {
  const candidate = identity as Partial<SsoIdentity> | null | undefined;
  const username = typeof candidate?.username === 'string' ? ssoUsername(candidate.username) : null;
  if (username === null) {
    throw new SsoInterpretationError(
      'SSO_INVALID_USERNAME',
      'The OpenID provider returned no valid username.',
    );
  }
  const entries: unknown[] = Array.isArray(candidate?.groupIds) ? candidate.groupIds : [];
  const groups: string[] = [];
  for (const entry of entries) {
    const groupId = typeof entry === 'string' ? groupIdOf(entry) : null;
    if (groupId === null) throw noMatch();
    if (groupId !== '') groups.push(groupId);
  }
  const distinct = [...new Set(groups)];
  if (distinct.length > 1) {
    throw new SsoInterpretationError(
      'SSO_MULTI_GROUPS',
      'The OpenID provider returned more than one group id.',
    );
  }
  if (distinct.length === 0) throw noMatch();
  return { username, groupId: distinct[0]! };
}
