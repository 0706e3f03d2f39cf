import { isConfirmed } from '../../domain/mfa/mfa-factor.js';
import type { Store } from '../../domain/store.port.js';
import type { UserLevel } from '../../domain/user/user.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import { assertFactorsApplicable } from './factor-change-authorisation.js';

export interface MfaOverviewCredential {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** `GET /api/v1/mfa/`: what the user has set up, never a secret. */
export interface MfaOverviewResult {
  /** A confirmed authenticator app (a pending enrolment is not one). */
  totp: boolean;
  webauthn: MfaOverviewCredential[];
  recoveryCodesLeft: number;
  /** The user's level is in MFA_REQUIRED_LEVELS. */
  required: boolean;
}

/** `GET /api/v1/mfa/` (contract 3b). */
export class MfaOverview {
  constructor(
    private readonly store: Store,
    private readonly requiredLevels: readonly UserLevel[],
  ) {}

  async execute(current: AuthenticatedSession): Promise<MfaOverviewResult> {
    assertFactorsApplicable(current);
    const factors = await this.store.mfa.factorsOf(current.user.userId);
    return {
      totp: isConfirmed(factors.totp),
      webauthn: factors.webauthn.map((credential) => ({
        id: credential.credentialId,
        name: credential.name,
        createdAt: credential.createdAt,
        lastUsedAt: credential.lastUsedAt,
      })),
      recoveryCodesLeft: factors.recoveryCodesLeft,
      required: this.requiredLevels.includes(current.user.userLevel),
    };
  }
}
