import type { AuthenticatedSession, SessionAuthenticator } from '../../application/session-authenticator.js';
import { PASSWORD_EXPIRED_DETAIL } from '../../client/wire.js';
import type { SessionStage, StepUp } from '../../domain/session/session-auth.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { GuardedRule } from './route.js';
import { checkSession } from './session-guard.js';

/** The pending stage each rule admits besides (or instead of) a full session. */
const PENDING_ADMITTED: Record<GuardedRule, readonly Exclude<SessionStage, 'full'>[]> = {
  live: [],
  'live-expired-allowed': [],
  'pending-second-factor': ['second_factor'],
  'live-or-enrolment': ['enrolment'],
};

/**
 * The session a guarded route runs with, as its rule (route.ts) says: the authenticator refuses a
 * pending session of a stage the rule does not admit (403 MFA_REQUIRED); what is left here is what
 * only the rule knows: a full session on a route that finishes a second-factor login, and expired
 * credentials, which only a full session is held to where the rule admits a pending one.
 */
export async function sessionForRule(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  cookieHeader: string,
  cookieName: string,
  rule: GuardedRule,
  stepUp?: StepUp,
): Promise<AuthenticatedSession> {
  const session = await checkSession(authenticator, cookieHeader, {
    cookieName,
    allowExpiredCredentials: rule !== 'live',
    allowPending: PENDING_ADMITTED[rule],
    stepUp,
  });
  if (rule === 'pending-second-factor' && session.auth.stage !== 'second_factor')
    throw new DomainError('MFA_NOT_APPLICABLE', 'This session is not waiting for a second factor.');
  if (rule === 'live-or-enrolment' && session.auth.stage === 'full' && session.credentials.isExpired)
    throw new DomainError('PASSWORD_EXPIRED', PASSWORD_EXPIRED_DETAIL);
  return session;
}
