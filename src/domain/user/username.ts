import type { FieldError } from '../shared/domain-error.js';

/** Longest username the store accepts (as typed, before canonicalisation). */
export const USERNAME_MAX_LENGTH = 200;

/**
 * The one form under which two usernames are the same account: for the lookup at login, the
 * uniqueness of accounts, the throttle's key and the SSO match alike.
 *
 * Unicode compatibility normalisation, then full case folding, then NFKC again (NFKC_Casefold,
 * in the spirit of UTS #46 and PRECIS): "Straße" = "STRASSE", "ＡＤＭＩＮ" = "admin",
 * "ﬁnn" = "finn", "ΣΊΣΥΦΟΣ" = "σίσυφος". JavaScript has no case-folding function; mapping to
 * upper case and back to lower case gives the full folding of the letters whose simple lower
 * case differs from it (ß → ss, final ς → σ, ı → i), which `toLowerCase` alone and SQL's
 * `lower()` (locale-dependent) do not. The canonical form is computed here only, never in SQL.
 */
export function canonicalUsername(username: string): string {
  return username.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

/** Characters that render as nothing or reorder text: a username holding one can pose as another. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;
/** White space other than the ASCII space (NBSP, U+3000...): looks like a space, is not one. */
const OTHER_SPACE = /[^\S ]/u;

/**
 * Why a username may not be made (`user add`, an import), or null. Besides the length: no control,
 * format (bidirectional overrides, zero-width), private-use, unassigned or otherwise invisible code
 * point (`adm\u200Bin` shows as "admin"), no white space but the ASCII space, and that one not at
 * either end.
 */
export function usernameViolation(path: string, username: string): FieldError | null {
  if (username.length === 0) return { path, message: 'must not be empty' };
  if (username.length > USERNAME_MAX_LENGTH) {
    return { path, message: `must have at most ${USERNAME_MAX_LENGTH} characters` };
  }
  if (INVISIBLE.test(username)) {
    return { path, message: 'must not contain control, format or invisible characters' };
  }
  if (OTHER_SPACE.test(username)) return { path, message: 'must not contain white space other than spaces' };
  if (username.trim() !== username) return { path, message: 'must not start or end with white space' };
  return null;
}

/**
 * A username as the OpenID provider sent it, made ready to match: only ASCII spaces at the ends are
 * dropped; any other white space, and any control, format or invisible character anywhere, refuses
 * it (null). `"\u00a0carol\u3000"` is not `carol`.
 */
export function ssoUsername(claimed: string): string | null {
  const username = claimed.replace(/^ +| +$/g, '');
  if (username.length === 0 || username.length > USERNAME_MAX_LENGTH) return null;
  if (INVISIBLE.test(username) || /\s/u.test(username)) return null;
  return username;
}

/**
 * A stored value shown on a terminal: every code point that could hide, fake or reorder text
 * is printed as `\u{...}`, so `adm\u200Bin` cannot pass for `admin` in `gatehouse` output.
 */
export function escapeForDisplay(value: string): string {
  return value.replace(new RegExp(`${INVISIBLE.source}|${OTHER_SPACE.source}|\\\\`, 'gu'), (character) =>
    character === '\\' ? '\\\\' : `\\u{${character.codePointAt(0)!.toString(16).toUpperCase()}}`,
  );
}
