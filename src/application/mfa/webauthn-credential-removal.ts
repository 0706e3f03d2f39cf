import { auditAccount, auditEvent } from '../../domain/audit/audit-event.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { ClientInfo } from '../login-result.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { SessionEnding } from '../session-ending.js';
import type { FactorChangeAuthorisation } from './factor-change-authorisation.js';

export interface WebAuthnCredentialRemovalDeps {
  /** The password a removal asks for; it refuses an SSO session first. */
  authorisation: FactorChangeAuthorisation;
  ending: SessionEnding;
  clock: Clock;
}

/**
 * `POST /api/v1/webauthn/credentials/<id>/remove/` (contract 3b). Works without a relying party
 * configured: taking a key away needs no ceremony, and a deployment that turned WebAuthn off must
 * still let its users drop what they registered.
 */
export class WebAuthnCredentialRemoval {
  constructor(private readonly deps: WebAuthnCredentialRemovalDeps) {}

  async remove(
    current: AuthenticatedSession,
    input: { credentialId: string; password: string; client: ClientInfo },
  ): Promise<void> {
    await this.deps.authorisation.authorise(current, input.password, input.client);
    const { user } = current;
    await this.deps.ending.unit(async (repositories, end) => {
      if (!(await repositories.mfa.removeWebAuthnCredential(user.userId, input.credentialId))) {
        // Another user's credential reads as none.
        throw new DomainError('NOT_FOUND', 'You have no credential with this id.');
      }
      await repositories.audit.record(
        auditEvent({
          ...auditAccount(user),
          occurredAt: this.deps.clock.now(),
          event: 'mfa_removed',
          actor: 'user',
          method: current.session.method,
          reason: 'webauthn',
          clientAddress: input.client.clientAddress,
          sessionHandle: current.session.handle,
        }),
      );
      await end.ofUser(
        user,
        {
          reason: 'factor_changed',
          method: current.session.method,
          clientAddress: input.client.clientAddress,
        },
        { except: current.tokenHash },
      );
    });
  }
}
