import { auditAccount, auditEvent } from '../../domain/audit/audit-event.js';
import { mfaMethodsOf } from '../../domain/mfa/mfa-factor.js';
import type { RecoveryCodeHasher } from '../../domain/mfa/recovery-code-hasher.port.js';
import { issueRecoveryCodes } from '../../domain/mfa/recovery-code-issuance.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { Store } from '../../domain/store.port.js';
import type { ClientInfo } from '../login-result.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { FactorChangeAuthorisation } from './factor-change-authorisation.js';

/**
 * `POST /api/v1/mfa/recovery-codes/` (contract 3b): ten new codes after the password, shown once;
 * every earlier code is dead when this answers (one replacing write). Refused (`409 CONFLICT`)
 * while the user has no factor: codes recover a factor, they are none. No session ends: the
 * factors are the same ones.
 */
export class RegenerateRecoveryCodes {
  constructor(
    private readonly store: Store,
    private readonly authorisation: FactorChangeAuthorisation,
    private readonly codeHasher: RecoveryCodeHasher,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  async execute(
    current: AuthenticatedSession,
    input: { password: string; client: ClientInfo },
  ): Promise<string[]> {
    await this.authorisation.authorise(current, input.password, input.client);
    const { user } = current;
    const { codes, hashes } = await issueRecoveryCodes(this.random, this.codeHasher, user.userId);
    await this.store.transaction(async (repositories) => {
      // Read in the unit: a factor removed meanwhile does not get codes beside nothing.
      if (mfaMethodsOf(await repositories.mfa.factorsOf(user.userId)).length === 0) {
        throw new DomainError('CONFLICT', 'Recovery codes need a second factor. Set one up first.');
      }
      const now = this.clock.now();
      await repositories.mfa.replaceRecoveryCodes(user.userId, hashes, now);
      await repositories.audit.record(
        auditEvent({
          ...auditAccount(user),
          occurredAt: now,
          event: 'recovery_codes_regenerated',
          actor: 'user',
          method: current.session.method,
          clientAddress: input.client.clientAddress,
          sessionHandle: current.session.handle,
        }),
      );
    });
    return codes;
  }
}
