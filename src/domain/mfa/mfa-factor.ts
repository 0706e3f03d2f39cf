/**
 * A user's second factors (contract 3b) as the domain sees them. Secrets never appear in clear:
 * a TOTP secret is sealed (totp-secret-sealing.ts), recovery codes are kept as keyed hashes
 * (recovery-codes.ts), and a WebAuthn credential is a public key.
 */

/** The methods a login may be finished with, as the contract names them (`mfa_methods`). */
export type MfaMethod = 'totp' | 'webauthn' | 'recovery_code';

/** How long a started TOTP enrolment may be confirmed (contract 3b: within 5 min). */
export const TOTP_ENROLMENT_TTL_S = 300;

/**
 * The user's authenticator app: at most one per user. It is pending from the enrolment's first
 * call until a code confirms it; only a confirmed factor finishes a login.
 */
export interface TotpFactor {
  /** Random, made by the caller; names the factor (the accepted steps are remembered per factor). */
  factorId: string;
  userId: string;
  /** The base32 secret, sealed for this user and factor (`sealTotpSecret`). */
  sealedSecret: string;
  createdAt: Date;
  /** Null while pending. */
  confirmedAt: Date | null;
  /**
   * The last time step (Unix seconds / 30) a code was accepted for: a code of that step or an
   * earlier one is a replay (RFC 6238 section 5.2). The confirming code counts.
   */
  lastAcceptedStep: number | null;
}

/** A passkey or security key: only its public part is kept. */
export interface WebAuthnCredential {
  /** The credential id the authenticator chose, base64url; unique across all users. */
  credentialId: string;
  userId: string;
  /** The user's label for it ("YubiKey", "Laptop"). */
  name: string;
  /** The COSE public key, as the authenticator sent it. */
  publicKey: Uint8Array;
  /** The authenticator's signature counter (0 for those that keep none). */
  signCount: number;
  /** Transport hints from registration (`usb`, `nfc`, `internal`, ...), for the request options. */
  transports: readonly string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** Everything a user has, read at once: what login, verification and `GET /api/v1/mfa/` need. */
export interface UserFactors {
  /** Confirmed or pending; see `isConfirmed`. */
  totp: TotpFactor | null;
  webauthn: WebAuthnCredential[];
  recoveryCodesLeft: number;
}

export function isConfirmed(totp: TotpFactor | null): totp is TotpFactor & { confirmedAt: Date } {
  return totp?.confirmedAt != null;
}

/** A pending enrolment older than TOTP_ENROLMENT_TTL_S is started again, never confirmed. */
export function isEnrolmentOpen(totp: TotpFactor, now: Date): boolean {
  return totp.confirmedAt === null && now.getTime() - totp.createdAt.getTime() < TOTP_ENROLMENT_TTL_S * 1000;
}

/**
 * The methods that can finish this user's login, in the contract's order. Recovery codes count
 * only beside a real factor: they recover one, they are not one.
 */
export function mfaMethodsOf(factors: UserFactors): MfaMethod[] {
  const methods: MfaMethod[] = [];
  if (isConfirmed(factors.totp)) methods.push('totp');
  if (factors.webauthn.length > 0) methods.push('webauthn');
  if (methods.length > 0 && factors.recoveryCodesLeft > 0) methods.push('recovery_code');
  return methods;
}
