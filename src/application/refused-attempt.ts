import { type AuditEvent, auditEvent } from '../domain/audit/audit-event.js';
import type { Store } from '../domain/store.port.js';

/** What is known of the account and the request an attempt was made with. */
export type AttemptContext = Pick<AuditEvent, 'actor'> & Partial<AuditEvent>;

/**
 * Records a refused password attempt (a login, a password change whose current password was
 * wrong, a login's second factor) in one transaction: the refusal, and beside it `login_throttled` when the attempt spent
 * the last place of a throttle budget, so the trail shows when and why the throttle closed.
 */
export async function recordRefusedAttempt(
  store: Store,
  context: AttemptContext,
  refusal: { occurredAt: Date; event: 'login' | 'password_change' | 'mfa_verified'; reason: string },
  throttled: boolean,
): Promise<void> {
  await store.transaction(async (repositories) => {
    await repositories.audit.record(auditEvent({ ...context, ...refusal, outcome: 'failure' }));
    if (throttled) {
      await repositories.audit.record(
        auditEvent({
          ...context,
          occurredAt: refusal.occurredAt,
          event: 'login_throttled',
          outcome: 'failure',
          reason: 'too_many_failures',
        }),
      );
    }
  });
}
