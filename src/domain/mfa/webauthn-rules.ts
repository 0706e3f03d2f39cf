import { createHash } from 'node:crypto';

/**
 * Contract 3b's counter rule: when the stored and the presented signature counters are not both
 * zero, the presented one must be greater. Equal or smaller means a cloned authenticator or a
 * replayed assertion (WebAuthn, "Signature Counter Considerations"); both zero is an
 * authenticator that keeps no counter (most synced passkeys), which proves nothing either way and
 * is accepted.
 */
export function signCountAccepted(stored: number, presented: number): boolean {
  if (stored === 0 && presented === 0) return true;
  return presented > stored;
}

/**
 * The WebAuthn user handle of a user: 32 bytes derived from the user id, base64url. The spec asks
 * for an opaque handle with no personal data in it ("User Handle Contents") and at most 64 bytes; a user id
 * may be imported as anything (an e-mail address included), so the id itself is not used. The same
 * user always gets the same handle, so a passkey's handle can be checked against its credential's
 * owner without storing it.
 */
export function webAuthnUserHandle(userId: string): string {
  return createHash('sha256').update(`gatehouse webauthn user\0${userId}`, 'utf8').digest('base64url');
}
