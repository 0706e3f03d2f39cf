import { createHash } from 'node:crypto';
import { auditAccount, auditEvent } from '../../domain/audit/audit-event.js';
import type { LoginThrottle, ThrottleKeys } from '../../domain/login/login-throttle.js';
import { mfaNotConfigured } from '../../domain/mfa/mfa-errors.js';
import { newWebAuthnChallenge, redeemWebAuthnChallenge } from '../../domain/mfa/webauthn-challenge.js';
import type { WebAuthnOptionsJson, WebAuthnVerifier } from '../../domain/mfa/webauthn-verifier.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { Store } from '../../domain/store.port.js';
import type { User } from '../../domain/user/user.js';
import type { LoginEvents } from '../login-events.js';
import type { ClientInfo, LoginResult } from '../login-result.js';
import { recordRefusedAttempt } from '../refused-attempt.js';
import type { SessionEnding } from '../session-ending.js';
import type { SessionIssuer } from '../session-issuer.js';

/** 32 bytes from the CSPRNG: the passkey-login attempt's cookie value. */
const ATTEMPT_BYTES = 32;

/** RFC 8176: a hardware-bound key, and more than one factor (the device and its PIN or biometric). */
export const PASSKEY_AMR = ['hwk', 'mfa'] as const;

export interface PasskeyLoginDeps {
  store: Store;
  /** Null when no relying party is configured: 409 MFA_NOT_CONFIGURED naming WEBAUTHN_RP_ID. */
  verifier: WebAuthnVerifier | null;
  throttle: LoginThrottle;
  issuer: SessionIssuer;
  ending: SessionEnding;
  clock: Clock;
  random: Random;
  events: LoginEvents;
}

/** Options for the browser, and the attempt's secret that the HttpOnly cookie carries. */
export interface PasskeyLoginStart {
  options: WebAuthnOptionsJson;
  attempt: string;
}

/** What a refused passkey login says: the password login's body (contract 3b). */
function authenticationFailed(): DomainError {
  return new DomainError('AUTHENTICATION_FAILED', 'The username or password is incorrect.');
}

/** A refusal inside the attempt, with the reason the audit trail and the metric get. */
class Refused extends Error {
  constructor(
    readonly reason: string,
    readonly user: User | null,
  ) {
    super(reason);
  }
}

/**
 * Passkey login (contract 3b): no username, no password; the authenticator picks one of its
 * discoverable credentials, proves the user with its PIN or biometric (user verification
 * required), and the credential says whose it is. The challenge is bound to the attempt's cookie,
 * stored hashed: someone who reads the table cannot finish an attempt.
 *
 * Throttled before anything is checked, as a password login is: per client address (the
 * address's budget, shared with password logins) and per credential id presented (a budget of its
 * own, never the account's: a passkey failure does not help lock out the account's password, and
 * password guesses do not lock out its passkeys; a forged assertion is out of reach anyway).
 */
export class PasskeyLogin {
  constructor(private readonly deps: PasskeyLoginDeps) {}

  async start(): Promise<PasskeyLoginStart> {
    const verifier = this.configured();
    const attempt = Buffer.from(this.deps.random.bytes(ATTEMPT_BYTES)).toString('base64url');
    const challenge = newWebAuthnChallenge(this.deps.random, this.deps.clock.now(), {
      ceremony: 'passkey_login',
      boundTo: attemptBinding(attempt),
    });
    await this.deps.store.mfa.saveWebAuthnChallenge(challenge);
    const options = await verifier.authenticationOptions({
      ceremony: 'passkey_login',
      challenge: challenge.value,
    });
    return { options, attempt };
  }

  async finish(input: {
    response: unknown;
    /** The attempt cookie's values as sent (none, or more than one, fail). */
    attempts: readonly string[];
    presentedTokens: readonly string[];
    client: ClientInfo;
  }): Promise<LoginResult> {
    const verifier = this.configured();
    const { store, clock, throttle } = this.deps;
    const credentialId = verifier.credentialIdOf(input.response);
    const ticket = await throttle.reserve(passkeyThrottleKeys(credentialId, input.client), clock.now());
    let user: User | null = null;
    let credential: Awaited<ReturnType<Store['mfa']['findWebAuthnCredential']>> = null;
    let newSignCount = 0;
    try {
      // The challenge is taken first: whatever goes wrong after, it is used up.
      const attempt = input.attempts.length === 1 ? input.attempts[0]! : null;
      const binding = attempt ? attemptBinding(attempt) : null;
      const taken = binding ? await store.mfa.takeWebAuthnChallenge('passkey_login', binding) : null;
      if (!taken || !binding) throw new Refused('no_challenge', null);
      const redeemed = redeemWebAuthnChallenge(
        taken,
        { ceremony: 'passkey_login', boundTo: binding },
        clock.now(),
      );
      if (redeemed.outcome === 'refused') throw new Refused(`challenge_${redeemed.reason}`, null);
      credential = credentialId ? await store.mfa.findWebAuthnCredential(credentialId) : null;
      if (!credential) throw new Refused('unknown_credential', null);
      user = await store.users.findByUserId(credential.userId);
      if (!user) throw new Refused('unknown_user', null);
      try {
        ({ newSignCount } = await verifier.verifyAuthentication({
          response: input.response,
          expectedChallenge: redeemed.expectedChallenge,
          credential,
          requireUserVerification: true,
        }));
      } catch (error) {
        if (isDomainError(error) && error.code === 'MFA_INVALID') throw new Refused('bad_passkey', user);
        throw error;
      }
      if (user.disabled) throw new Refused('account_disabled', user);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const { blocked } = throttle.failed(ticket);
      await recordRefusedAttempt(
        store,
        {
          actor: 'user',
          method: 'password',
          clientAddress: input.client.clientAddress,
          ...auditAccount(error.user),
        },
        { occurredAt: clock.now(), event: 'login', reason: error.reason },
        blocked,
      );
      this.deps.events.loginFailed({
        method: 'password',
        reason: error.reason,
        userId: error.user?.userId ?? null,
        blocked,
      });
      throw authenticationFailed();
    }
    const account = user!;
    const used = credential!;
    const result = await this.deps.ending.unit(async (repositories, end) => {
      const now = clock.now();
      // The counter moves only if no concurrent use moved it first: one of two replays wins.
      if (!(await repositories.mfa.recordWebAuthnUse(used.credentialId, newSignCount, now))) {
        throw authenticationFailed();
      }
      await throttle.succeeded(ticket, repositories.throttle);
      const issued = await this.deps.issuer.issue(end, {
        user: account,
        method: 'password',
        presentedTokens: input.presentedTokens,
        client: input.client,
        auth: { stage: 'full', amr: [...PASSKEY_AMR] },
      });
      await repositories.audit.record(
        auditEvent({
          ...auditAccount(account),
          occurredAt: now,
          event: 'login',
          actor: 'user',
          method: 'password',
          reason: 'passkey',
          clientAddress: input.client.clientAddress,
          sessionHandle: issued.sessionHandle,
        }),
      );
      return issued;
    });
    this.deps.events.loginSucceeded({ method: 'password', userId: account.userId });
    return result;
  }

  private configured(): WebAuthnVerifier {
    if (!this.deps.verifier) throw mfaNotConfigured('WEBAUTHN_RP_ID');
    return this.deps.verifier;
  }
}

/** What the store keeps of an attempt's cookie value: its hash, never the value. */
function attemptBinding(attempt: string): string {
  return createHash('sha256').update(attempt, 'utf8').digest('base64url');
}

/** The address's budget as a password login's; the credential's own in place of the account's. */
function passkeyThrottleKeys(credentialId: string | null, client: ClientInfo): ThrottleKeys {
  const credential = createHash('sha256')
    .update(credentialId ?? '', 'utf8')
    .digest('base64url');
  return {
    user: `passkey:${credential}`,
    address: client.clientAddress ? `addr:${client.clientAddress}` : null,
  };
}
