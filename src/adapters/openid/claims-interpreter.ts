import type { ValidatedTokenSet } from '../../domain/sso/openid-provider.port.js';
import { BUILT_IN_INTERPRETER } from '../../domain/sso/provider-registration.js';
import type {
  SsoIdentity,
  SsoInterpreterSettings,
  SsoTokenInterpreter,
} from '../../domain/sso/sso-token-interpreter.port.js';

/** Reads a claim by name, or by dotted path for nested claims (`realm_access.groups`). */
export function readClaim(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (name in claims) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The group claim as sent: a string is one group; an array is handed on whole, entries of any
 * type, so the service's own check refuses `[g1, 5, null]` rather than reading it as `g1`.
 */
function asGroups(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value as string[];
  return [];
}

/**
 * The built-in interpreter: the username from SSO_USERNAME_CLAIM and the group id(s) from
 * SSO_GROUP_CLAIM (a string or an array), in the ID token, falling back to userinfo claims.
 */
export function createClaimsInterpreter(
  settings: Pick<SsoInterpreterSettings, 'usernameClaim' | 'groupClaim'>,
): SsoTokenInterpreter {
  return {
    name: BUILT_IN_INTERPRETER,
    interpret(tokens: ValidatedTokenSet): SsoIdentity {
      const pick = (claim: string) =>
        readClaim(tokens.claims, claim) ?? (tokens.userinfo ? readClaim(tokens.userinfo, claim) : undefined);
      const username = pick(settings.usernameClaim);
      return {
        username: typeof username === 'string' ? username : '',
        groupIds: asGroups(pick(settings.groupClaim)),
      };
    },
  };
}
