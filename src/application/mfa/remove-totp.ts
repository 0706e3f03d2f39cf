import { mfaMethodsOf } from '../../domain/mfa/mfa-factor.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { ClientInfo } from '../login-result.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { SessionEnding } from '../session-ending.js';
import type { FactorChangeAuthorisation } from './factor-change-authorisation.js';
import { recordFactorChange } from './factor-changed.js';

/**
 * `POST /api/v1/mfa/totp/remove/` (contract 3b): removes the user's authenticator app, confirmed
 * or pending, after the password. When it was the last factor, the recovery codes go too: they
 * recover a factor and are none (a later first factor brings fresh ones).
 */
export class RemoveTotp {
  constructor(
    private readonly ending: SessionEnding,
    private readonly authorisation: FactorChangeAuthorisation,
    private readonly clock: Clock,
  ) {}

  async execute(
    current: AuthenticatedSession,
    input: { password: string; client: ClientInfo },
  ): Promise<void> {
    await this.authorisation.authorise(current, input.password, input.client);
    const { user } = current;
    await this.ending.unit(async (repositories, end) => {
      const now = this.clock.now();
      if (!(await repositories.mfa.removeTotp(user.userId))) {
        throw new DomainError('NOT_FOUND', 'No authenticator app is set up.');
      }
      const left = await repositories.mfa.factorsOf(user.userId);
      if (mfaMethodsOf(left).length === 0 && left.recoveryCodesLeft > 0) {
        await repositories.mfa.replaceRecoveryCodes(user.userId, [], now);
      }
      await recordFactorChange(end, {
        event: 'mfa_removed',
        method: 'totp',
        user,
        keepTokenHash: current.tokenHash,
        sessionMethod: current.session.method,
        sessionHandle: current.session.handle,
        client: input.client,
        now,
      });
    });
  }
}
