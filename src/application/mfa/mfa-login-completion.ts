import { auditAccount, auditEvent } from '../../domain/audit/audit-event.js';
import type { MfaMethod } from '../../domain/mfa/mfa-factor.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { EndingRepositories } from '../../domain/store.port.js';
import type { LoginEvents } from '../login-events.js';
import type { ClientInfo, LoginResult } from '../login-result.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { SessionEnder, SessionEnding } from '../session-ending.js';
import type { SessionIssuer } from '../session-issuer.js';

/** The `amr` value (RFC 8176) each of our second factors adds to the password's `pwd`. */
export const SECOND_FACTOR_AMR: Readonly<Record<MfaMethod, string>> = {
  totp: 'otp',
  webauthn: 'hwk',
  recovery_code: 'recovery',
};

/**
 * Finishes a login whose second factor was just proved (or whose required first factor was just
 * enrolled): the pending session ends and a full one is issued with a new id (ASVS 7.2.4), so
 * nothing learnt about the pending cookie is worth anything after. The one way every second-factor
 * path turns a pending session into a login.
 */
export class MfaLoginCompletion {
  constructor(
    private readonly ending: SessionEnding,
    private readonly issuer: SessionIssuer,
    private readonly clock: Clock,
    private readonly events: LoginEvents,
  ) {}

  /**
   * `alsoInUnit` runs in the same unit of work, before the pending session is replaced (the factor
   * write that accepts the proof; the enrolment that a required-enrolment login confirms, whose
   * `end` of the user's other sessions excepts the pending one). The pending session must still
   * exist when the unit replaces it: of two requests that both proved a factor, one gets the login,
   * the other is refused; a password change or a logout in between ended it too.
   */
  async complete(
    pending: AuthenticatedSession,
    method: MfaMethod,
    client: ClientInfo,
    alsoInUnit?: (repositories: EndingRepositories, end: SessionEnder) => Promise<void>,
  ): Promise<LoginResult> {
    const { user } = pending;
    const amr = [...new Set([...pending.auth.amr, SECOND_FACTOR_AMR[method]])];
    const result = await this.ending.unit(async (repositories, end) => {
      // Before the pending session is replaced, so that a write refused here (a code spent by a
      // racing request) leaves the pending session as it was on a store outside the transaction.
      await alsoInUnit?.(repositories, end);
      // The `mfa_verified` record below names the session that takes the pending one's place, so
      // the pending session's end needs no record of its own (it is counted all the same).
      const issued = await this.issuer.issue(end, {
        user,
        method: 'password',
        presentedTokens: [],
        client,
        auth: { stage: 'full', amr },
        replaces: {
          tokenHash: pending.tokenHash,
          cause: { reason: 'mfa_completed', user, clientAddress: client.clientAddress, audited: false },
        },
      });
      await repositories.audit.record(
        auditEvent({
          ...auditAccount(user),
          occurredAt: this.clock.now(),
          event: 'mfa_verified',
          actor: 'user',
          method: 'password',
          reason: method,
          clientAddress: client.clientAddress,
          sessionHandle: issued.sessionHandle,
        }),
      );
      return issued;
    });
    this.events.mfaChecked?.({ method, outcome: 'success', userId: user.userId });
    this.events.loginSucceeded({ method: 'password', userId: user.userId });
    return result;
  }
}
