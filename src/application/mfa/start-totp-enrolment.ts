import { mfaNotConfigured } from '../../domain/mfa/mfa-errors.js';
import type { TotpAuthenticator } from '../../domain/mfa/totp-authenticator.port.js';
import { sealTotpSecret } from '../../domain/mfa/totp-secret-sealing.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';
import type { Store } from '../../domain/store.port.js';
import type { ClientInfo } from '../login-result.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import { assertFactorsApplicable, type FactorChangeAuthorisation } from './factor-change-authorisation.js';

export interface TotpEnrolmentStarted {
  /** Base32, for typing into the app; shown this once (only its sealed form is kept). */
  secret: string;
  /** The `otpauth://totp/...` URI a QR code carries. */
  otpauthUri: string;
}

/** A factor id: 16 random bytes, base64url. */
function newFactorId(random: Random): string {
  return Buffer.from(random.bytes(16)).toString('base64url');
}

/**
 * `POST /api/v1/mfa/totp/` (contract 3b): stores a pending TOTP factor, sealed, and hands its
 * secret over once. Not active until `ConfirmTotpEnrolment` sees a code of it, within 5 minutes.
 */
export class StartTotpEnrolment {
  constructor(
    private readonly store: Store,
    private readonly authorisation: FactorChangeAuthorisation,
    private readonly totp: TotpAuthenticator,
    private readonly sealer: TokenSealer | null,
    private readonly random: Random,
    private readonly clock: Clock,
    private readonly issuer: string,
  ) {}

  async execute(
    current: AuthenticatedSession,
    input: { password: string; client: ClientInfo },
  ): Promise<TotpEnrolmentStarted> {
    assertFactorsApplicable(current);
    // Before the password: a service that cannot keep the secret spends none of the user's budget.
    if (!this.sealer) throw mfaNotConfigured('TOKEN_ENCRYPTION_KEY');
    await this.authorisation.authorise(current, input.password, input.client);
    const { user } = current;
    const factorId = newFactorId(this.random);
    const secret = this.totp.newSecret();
    const sealedSecret = sealTotpSecret(this.sealer, secret, { userId: user.userId, factorId });
    const outcome = await this.store.mfa.addPendingTotp({
      factorId,
      userId: user.userId,
      sealedSecret,
      createdAt: this.clock.now(),
    });
    if (outcome === 'confirmed_exists') {
      // One authenticator app per user: changing phones is "remove, then add" (docs/second-factors.md).
      throw new DomainError(
        'CONFLICT',
        'An authenticator app is already set up. Remove it first to set up another.',
      );
    }
    return {
      secret,
      otpauthUri: this.totp.provisioningUri(secret, { issuer: this.issuer, account: user.username }),
    };
  }
}
