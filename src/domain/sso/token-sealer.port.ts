import type { SsoSessionRef } from '../session/session.js';

/**
 * Encrypts provider tokens kept with a session (contract 6: secrets among them are encrypted at
 * rest). A value is sealed for one `binding` (`tokenBinding`) and opens only with that same
 * binding; `open` returns null for anything it cannot decrypt (another key, another binding,
 * tampering).
 */
export interface TokenSealer {
  seal(plain: string, binding: string): string;
  open(sealed: string, binding: string): string | null;
}

/**
 * What a sealed provider token is bound to: the slot it fills and the provider session of the
 * Gatehouse session that holds it. A value copied into another slot or another user's session (by
 * someone who can write the store but has no key) does not open, so it cannot make this service
 * revoke, or present, someone else's grant. The provider session outlives the Gatehouse session's
 * rotation (a password change moves the tokens unchanged).
 */
export function tokenBinding(
  slot: 'access_token' | 'refresh_token',
  session: Pick<SsoSessionRef, 'issuer' | 'subject' | 'sid'>,
): string {
  // JSON: unambiguous whatever characters the provider's claims hold.
  return JSON.stringify(['gatehouse provider token', slot, session.issuer, session.subject, session.sid]);
}
