import type { UserFactors, WebAuthnCredential } from './mfa-factor.js';
import type { WebAuthnCeremony, WebAuthnChallenge } from './webauthn-challenge.js';

/** A pending TOTP enrolment as the enrolment's first call makes it. */
export interface NewTotpEnrolment {
  factorId: string;
  userId: string;
  sealedSecret: string;
  createdAt: Date;
}

/**
 * Where second factors are kept, shaped by what the domain asks (contract 3b). Every write that
 * decides whether a code is accepted is one atomic step of the store ("only if newer", "only if
 * still there"), so two requests racing with the same code on two instances cannot both win.
 * Proven for every adapter by test/contract/mfa-factor-repository.contract.ts. A `userId` given to
 * a write is an existing user's (the SQL store refuses another; its factors go with the user).
 */
export interface MfaFactorRepository {
  /** The user's factors (an unknown user has none). */
  factorsOf(userId: string): Promise<UserFactors>;

  /**
   * Starts a TOTP enrolment: stores the factor pending, in place of a pending one the user
   * started before. A user whose TOTP is confirmed keeps it: `'confirmed_exists'`, nothing stored
   * (to change the app, remove the factor first).
   */
  addPendingTotp(enrolment: NewTotpEnrolment): Promise<'added' | 'confirmed_exists'>;

  /**
   * Confirms the pending factor `factorId` of the user, remembering `step` (the step of the
   * confirming code) as accepted. False when there is no such pending factor (confirmed already,
   * started again, removed).
   */
  confirmTotp(userId: string, factorId: string, step: number, now: Date): Promise<boolean>;

  /**
   * Accepts time step `step` for the confirmed factor `factorId` only if it is newer than the last
   * step accepted: true for exactly one of any number of concurrent calls with the same step; false
   * for a step already used, an earlier one, or a factor that is pending or gone.
   */
  acceptTotpStep(userId: string, factorId: string, step: number): Promise<boolean>;

  /** Removes the user's TOTP factor, confirmed or pending. False when there was none. */
  removeTotp(userId: string): Promise<boolean>;

  /** Adds a credential; `'exists'` when its id is already registered (to anyone). */
  addWebAuthnCredential(credential: WebAuthnCredential): Promise<'added' | 'exists'>;

  /** Removes one of the user's credentials. False when the user has no such credential. */
  removeWebAuthnCredential(userId: string, credentialId: string): Promise<boolean>;

  /** The credential with this id, whoever owns it (a passkey login learns the user from it). */
  findWebAuthnCredential(credentialId: string): Promise<WebAuthnCredential | null>;

  /**
   * Records a verified use of a credential: stores `presentedSignCount` and `now` as its last use,
   * only if the counter rule (`signCountAccepted`) still holds against the counter stored now. One
   * atomic step: of concurrent uses presenting the same non-zero counter exactly one is true; false
   * too for a credential removed since it was read.
   */
  recordWebAuthnUse(credentialId: string, presentedSignCount: number, now: Date): Promise<boolean>;

  /**
   * Keeps a challenge handed out in options, in place of any earlier one of the same ceremony and
   * binding (the latest options are the ones the client answers; older ones die).
   */
  saveWebAuthnChallenge(challenge: WebAuthnChallenge): Promise<void>;

  /**
   * Takes the challenge of this ceremony and binding out of the store, whatever its age (the caller
   * checks it with `redeemWebAuthnChallenge`): one atomic step, so of concurrent takes one gets it
   * and a challenge is never used twice. Null when there is none (never given, taken, replaced).
   */
  takeWebAuthnChallenge(ceremony: WebAuthnCeremony, boundTo: string): Promise<WebAuthnChallenge | null>;

  /** Deletes up to `limit` challenges expired at `now`; how many went. */
  purgeExpiredWebAuthnChallenges(now: Date, limit: number): Promise<number>;

  /**
   * Replaces the user's recovery codes with these hashes, all at once: every earlier code is
   * dead when this resolves. Concurrent replacements leave one whole set, never a mix.
   */
  replaceRecoveryCodes(userId: string, codeHashes: readonly string[], now: Date): Promise<void>;

  /**
   * Uses up the code with this hash: true for exactly one of any number of concurrent calls, false
   * for a code the user does not have (never had, used, or replaced).
   */
  consumeRecoveryCode(userId: string, codeHash: string): Promise<boolean>;

  /**
   * Removes every factor of the user at once: the TOTP factor (confirmed or pending), every
   * WebAuthn credential and every recovery code (`gatehouse user reset-mfa`). Returns what was
   * removed, so the administrator is told; all zero/false when the user had nothing.
   */
  removeAllFactors(userId: string): Promise<RemovedFactors>;
}

/** What `removeAllFactors` found and removed. */
export interface RemovedFactors {
  totp: boolean;
  webauthn: number;
  recoveryCodes: number;
}
