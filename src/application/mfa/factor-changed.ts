import { auditAccount, auditEvent } from '../../domain/audit/audit-event.js';
import type { MfaMethod } from '../../domain/mfa/mfa-factor.js';
import type { LoginMethod } from '../../domain/session/session.js';
import type { User } from '../../domain/user/user.js';
import type { ClientInfo } from '../login-result.js';
import type { SessionEnder } from '../session-ending.js';

export interface FactorChange {
  event: 'mfa_enrolled' | 'mfa_removed';
  method: MfaMethod;
  user: User;
  /** The session the change was made in: it stays (its hash); every other one of the user ends. */
  keepTokenHash: string;
  /** The login method of the session the change was made in, for the records. */
  sessionMethod: LoginMethod;
  sessionHandle: string;
  client: ClientInfo;
  now: Date;
}

/**
 * What adding or removing a factor does besides the factor itself, in the same unit of work
 * (contract 3b): the change is audited (`reason` the method), and the user's other sessions end
 * (`factor_changed`), as after a password change: a session someone else holds must not outlive
 * the factor the user just added against them, nor keep what the removed one protected.
 */
export async function recordFactorChange(end: SessionEnder, change: FactorChange): Promise<void> {
  await end.repositories.audit.record(
    auditEvent({
      ...auditAccount(change.user),
      occurredAt: change.now,
      event: change.event,
      actor: 'user',
      method: change.sessionMethod,
      reason: change.method,
      clientAddress: change.client.clientAddress,
      sessionHandle: change.sessionHandle,
    }),
  );
  await end.ofUser(
    change.user,
    { reason: 'factor_changed', method: change.sessionMethod, clientAddress: change.client.clientAddress },
    { except: change.keepTokenHash },
  );
}
