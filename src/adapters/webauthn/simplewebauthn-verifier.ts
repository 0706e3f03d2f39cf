import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { decodeAttestationObject, isoBase64URL } from '@simplewebauthn/server/helpers';
import { mfaInvalid } from '../../domain/mfa/mfa-errors.js';
import type { WebAuthnCredential } from '../../domain/mfa/mfa-factor.js';
import { WEBAUTHN_CHALLENGE_TTL_S } from '../../domain/mfa/webauthn-challenge.js';
import { signCountAccepted, webAuthnUserHandle } from '../../domain/mfa/webauthn-rules.js';
import type {
  VerifiedAuthentication,
  VerifiedRegistration,
  WebAuthnOptionsJson,
  WebAuthnVerifier,
} from '../../domain/mfa/webauthn-verifier.port.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import { authenticationResponseShape, registrationResponseShape } from './webauthn-response-shapes.js';

export interface WebAuthnRelyingParty {
  /** WEBAUTHN_RP_ID: the registrable domain credentials are scoped to. */
  id: string;
  /** WEBAUTHN_RP_NAME: what the authenticator shows. */
  name: string;
  /** TRUSTED_ORIGINS: the pages a ceremony may run on (`https://app.example.com`). */
  origins: readonly string[];
}

/**
 * COSE algorithms offered and accepted, the same list for both (the library's default would add
 * ML-DSA-44 on a runtime that has it, which the stored keys would then need everywhere):
 * EdDSA, ES256 (what nearly every authenticator makes), RS256 (Windows Hello).
 */
const ALGORITHMS = [-8, -7, -257];

/** The browser's time-out matches the challenge's life: options are useless after it anyway. */
const TIMEOUT_MS = WEBAUTHN_CHALLENGE_TTL_S * 1000;

/**
 * The WebAuthn ceremonies over @simplewebauthn/server. Every failure of the library (it throws
 * plain Errors with messages meant for developers) becomes `MFA_INVALID` here, with the library's
 * error kept as `cause` for the log.
 */
export class SimpleWebAuthnVerifier implements WebAuthnVerifier {
  constructor(private readonly relyingParty: WebAuthnRelyingParty) {
    if (relyingParty.id === '') throw new Error('A WebAuthn relying party needs an id.');
    if (relyingParty.origins.length === 0) throw new Error('A WebAuthn relying party needs an origin.');
  }

  async registrationOptions(input: {
    user: { userId: string; username: string };
    challenge: string;
    existing: readonly WebAuthnCredential[];
  }): Promise<WebAuthnOptionsJson> {
    const options = await generateRegistrationOptions({
      rpName: this.relyingParty.name,
      rpID: this.relyingParty.id,
      userName: input.user.username,
      userID: isoBase64URL.toBuffer(webAuthnUserHandle(input.user.userId)),
      challenge: isoBase64URL.toBuffer(input.challenge),
      timeout: TIMEOUT_MS,
      // No attestation asked: see `acceptedAttestation`.
      attestationType: 'none',
      excludeCredentials: input.existing.map(allowed),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    return { ...options };
  }

  async verifyRegistration(input: {
    response: unknown;
    expectedChallenge: string;
  }): Promise<VerifiedRegistration> {
    const parsed = registrationResponseShape.safeParse(input.response);
    if (!parsed.success) throw mfaInvalidBecause(parsed.error);
    const response = parsed.data;
    return translated(async () => {
      acceptedAttestation(response.response.attestationObject);
      const result = await verifyRegistrationResponse({
        response,
        expectedChallenge: input.expectedChallenge,
        expectedOrigin: [...this.relyingParty.origins],
        expectedRPID: this.relyingParty.id,
        requireUserPresence: true,
        // Asked as "preferred": a security key without a PIN is a good second factor. Whether a
        // passkey login may use the credential is decided at each login, which requires it.
        requireUserVerification: false,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (!result.verified) throw new Error('The registration response did not verify.');
      const { credential, userVerified } = result.registrationInfo;
      return {
        credentialId: credential.id,
        publicKey: new Uint8Array(credential.publicKey),
        signCount: credential.counter,
        transports: response.response.transports,
        userVerified,
      };
    });
  }

  async authenticationOptions(
    input:
      | { ceremony: 'second_factor'; challenge: string; credentials: readonly WebAuthnCredential[] }
      | { ceremony: 'passkey_login'; challenge: string },
  ): Promise<WebAuthnOptionsJson> {
    const challenge = isoBase64URL.toBuffer(input.challenge);
    const options =
      input.ceremony === 'passkey_login'
        ? await generateAuthenticationOptions({
            rpID: this.relyingParty.id,
            challenge,
            timeout: TIMEOUT_MS,
            userVerification: 'required',
          })
        : await generateAuthenticationOptions({
            rpID: this.relyingParty.id,
            challenge,
            timeout: TIMEOUT_MS,
            allowCredentials: input.credentials.map(allowed),
            userVerification: 'preferred',
          });
    return { ...options };
  }

  credentialIdOf(response: unknown): string | null {
    const parsed = authenticationResponseShape.safeParse(response);
    return parsed.success ? parsed.data.id : null;
  }

  async verifyAuthentication(input: {
    response: unknown;
    expectedChallenge: string;
    credential: WebAuthnCredential;
    requireUserVerification: boolean;
  }): Promise<VerifiedAuthentication> {
    const parsed = authenticationResponseShape.safeParse(input.response);
    if (!parsed.success) throw mfaInvalidBecause(parsed.error);
    const response = parsed.data;
    const { credential } = input;
    return translated(async () => {
      if (response.id !== credential.credentialId) {
        throw new Error('The response names another credential.');
      }
      const { userHandle } = response.response;
      // A discoverable credential says whose it is; it must be the owner's on record.
      if (userHandle !== undefined && userHandle !== webAuthnUserHandle(credential.userId)) {
        throw new Error("The response's user handle is not the credential owner's.");
      }
      const result = await verifyAuthenticationResponse({
        response,
        expectedChallenge: input.expectedChallenge,
        expectedOrigin: [...this.relyingParty.origins],
        expectedRPID: this.relyingParty.id,
        credential: {
          id: credential.credentialId,
          publicKey: new Uint8Array(credential.publicKey),
          counter: credential.signCount,
          transports: [...credential.transports],
        },
        requireUserVerification: input.requireUserVerification,
      });
      if (!result.verified) throw new Error('The assertion signature did not verify.');
      const { newCounter, userVerified } = result.authenticationInfo;
      // The library applies the same rule today; the contract's rule is ours, not a library default.
      if (!signCountAccepted(credential.signCount, newCounter)) {
        throw new Error(`The signature counter did not advance (${credential.signCount} -> ${newCounter}).`);
      }
      return { credentialId: credential.credentialId, newSignCount: newCounter, userVerified };
    });
  }
}

/**
 * The attestation formats taken: `none`, and `packed` without a certificate chain (self
 * attestation, signed by the credential's own key, which the library checks). Those are exactly
 * what a browser sends for the `none` conveyance the options ask for (WebAuthn, "Create a New
 * Credential": the client replaces any other statement with `none` unless it is self attestation).
 * The service keeps no list of trusted authenticator makers (no metadata service), so a
 * certificate chain could prove nothing here; a response that carries one (or a `tpm`,
 * `android-key`, `apple`, `fido-u2f` statement) was not made for these options and is refused.
 */
function acceptedAttestation(attestationObject: string): void {
  const decoded = decodeAttestationObject(isoBase64URL.toBuffer(attestationObject));
  const fmt = decoded.get('fmt');
  if (fmt === 'none') return;
  if (fmt === 'packed' && decoded.get('attStmt').get('x5c') === undefined) return;
  throw new Error(`Attestation format ${String(fmt)} is not accepted.`);
}

function allowed(credential: WebAuthnCredential): { id: string; transports: string[] } {
  return { id: credential.credentialId, transports: [...credential.transports] };
}

/** `MFA_INVALID` as mfa-errors.ts words it, with the reason kept for the log, never the client. */
function mfaInvalidBecause(cause: unknown): DomainError {
  const refusal = mfaInvalid();
  return new DomainError(refusal.code, refusal.message, { cause });
}

/** Runs a library step; anything it throws becomes `MFA_INVALID`, its error kept as the cause. */
async function translated<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isDomainError(error)) throw error;
    throw mfaInvalidBecause(error);
  }
}
