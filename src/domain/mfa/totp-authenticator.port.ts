/**
 * TOTP as contract 3b fixes it (RFC 6238: HMAC-SHA-1, 6 digits, 30 s steps: what every
 * authenticator app reads), behind a port so the domain names no library.
 */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now: one (clock drift and typing time), no more. */
export const TOTP_WINDOW = 1;

export interface TotpAuthenticator {
  /** A fresh secret from the CSPRNG, base32 (what authenticator apps take). */
  newSecret(): string;
  /** The `otpauth://totp/...` URI a QR code carries, labelled `issuer:account`. */
  provisioningUri(secret: string, label: { issuer: string; account: string }): string;
  /**
   * The time step the code belongs to when it is right for now's step or one either side, else
   * null. Acceptance is not decided here: the step must still be newer than the factor's last
   * accepted one (`MfaFactorRepository.acceptTotpStep`), which refuses a replay.
   */
  matchingStep(secret: string, code: string): number | null;
}
