import { Secret, TOTP } from 'otpauth';
import {
  TOTP_DIGITS,
  TOTP_PERIOD_S,
  TOTP_WINDOW,
  type TotpAuthenticator,
} from '../../domain/mfa/totp-authenticator.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Random } from '../../domain/shared/random.port.js';

/** 160 bits: the HMAC-SHA-1 key length RFC 4226 (section 4) recommends. */
const SECRET_BYTES = 20;
const CODE = new RegExp(`^\\d{${TOTP_DIGITS}}$`);

/**
 * TOTP over `otpauth` (RFC 4226/6238, its HMAC from @noble/hashes, codes compared in constant
 * time). Time comes from the injected clock, never the caller: a client cannot pick the moment
 * its code is checked against (ASVS 5.0 6.5.8).
 */
export class OtpauthTotpAuthenticator implements TotpAuthenticator {
  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  newSecret(): string {
    const bytes = this.random.bytes(SECRET_BYTES);
    return new Secret({ buffer: bytes.slice().buffer }).base32;
  }

  provisioningUri(secret: string, label: { issuer: string; account: string }): string {
    return this.totp(secret, label).toString();
  }

  matchingStep(secret: string, code: string): number | null {
    if (!CODE.test(code)) return null;
    const timestamp = this.clock.now().getTime();
    const delta = this.totp(secret).validate({ token: code, timestamp, window: TOTP_WINDOW });
    if (delta === null) return null;
    return TOTP.counter({ period: TOTP_PERIOD_S, timestamp }) + delta;
  }

  private totp(
    secret: string,
    label: { issuer: string; account: string } = { issuer: '', account: '' },
  ): TOTP {
    return new TOTP({
      issuer: label.issuer,
      label: label.account,
      algorithm: 'SHA1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_S,
      secret: Secret.fromBase32(secret),
    });
  }
}
