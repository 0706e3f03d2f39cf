import type { WebAuthnCredential } from './mfa-factor.js';

/**
 * WebAuthn ceremonies (contract 3b) behind a port, so the domain names no library. Options and
 * responses are the W3C JSON forms: the domain hands options to the client as they are and takes
 * responses as the client sent them (`unknown`: the adapter checks their shape).
 *
 * Every refusal (a malformed response, another origin or relying party, a challenge that is not
 * the expected one, a bad signature, a counter that did not move, user verification missing when
 * required, an attestation the service does not take) is a DomainError `MFA_INVALID` with the
 * library's error as `cause`: never a thrown library error. A passkey login turns it into its own
 * `AUTHENTICATION_FAILED`.
 */
export interface WebAuthnVerifier {
  /**
   * `PublicKeyCredentialCreationOptionsJSON` for adding a credential: resident key preferred, user
   * verification preferred, the user's own credentials excluded (an authenticator already
   * registered says so instead of making a second credential).
   */
  registrationOptions(input: {
    user: { userId: string; username: string };
    challenge: string;
    existing: readonly WebAuthnCredential[];
  }): Promise<WebAuthnOptionsJson>;

  /** Checks a `RegistrationResponseJSON` against the challenge that was redeemed for it. */
  verifyRegistration(input: { response: unknown; expectedChallenge: string }): Promise<VerifiedRegistration>;

  /**
   * `PublicKeyCredentialRequestOptionsJSON`. For a second factor: the user's credentials allowed,
   * user verification preferred. For a passkey login: no `allowCredentials` (the authenticator
   * offers its discoverable credentials; nothing tells a caller whether a username exists), user
   * verification required.
   */
  authenticationOptions(
    input:
      | { ceremony: 'second_factor'; challenge: string; credentials: readonly WebAuthnCredential[] }
      | { ceremony: 'passkey_login'; challenge: string },
  ): Promise<WebAuthnOptionsJson>;

  /**
   * The credential id an `AuthenticationResponseJSON` names, so the caller can find the stored
   * credential to verify it with; null when the response is not one.
   */
  credentialIdOf(response: unknown): string | null;

  /**
   * Checks an `AuthenticationResponseJSON` made with `credential`: signature, challenge, origin,
   * relying party, user presence, user verification when `requireUserVerification` (a passkey login),
   * the counter rule (`signCountAccepted`) and, when the response carries a user handle, that it is
   * the credential owner's. Storing the new counter is the caller's (only if it still advances).
   */
  verifyAuthentication(input: {
    response: unknown;
    expectedChallenge: string;
    credential: WebAuthnCredential;
    requireUserVerification: boolean;
  }): Promise<VerifiedAuthentication>;
}

/** A W3C options object in its JSON form, handed to the client unchanged. */
export type WebAuthnOptionsJson = { readonly challenge: string } & Readonly<Record<string, unknown>>;

/** What a good registration gives: the public parts of a `WebAuthnCredential`. */
export interface VerifiedRegistration {
  credentialId: string;
  /** The COSE public key. */
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
  userVerified: boolean;
}

export interface VerifiedAuthentication {
  credentialId: string;
  /** The counter the authenticator presented: the one to store. */
  newSignCount: number;
  userVerified: boolean;
}
