import { timingSafeEqual } from 'node:crypto';
import type { Random } from '../shared/random.port.js';

/** Contract 3b: a WebAuthn challenge is good for 5 minutes. */
export const WEBAUTHN_CHALLENGE_TTL_S = 300;

/**
 * 32 bytes from the CSPRNG: twice the 16 the WebAuthn spec asks as a minimum ("Cryptographic Challenges"), so
 * a challenge is never guessed or met twice.
 */
const CHALLENGE_BYTES = 32;

/**
 * What a challenge was asked for. A registration challenge cannot finish a login and the other way
 * round, and a second factor's cannot log a user in without a password.
 */
export type WebAuthnCeremony = 'registration' | 'second_factor' | 'passkey_login';

/**
 * One WebAuthn challenge: made for one ceremony of one session or login attempt, used once, within
 * WEBAUTHN_CHALLENGE_TTL_S. Pure data: whoever keeps it (the session, a cookie-bound attempt) stores
 * it as it is and stores what `redeemWebAuthnChallenge` hands back, so a used challenge stays used.
 */
export interface WebAuthnChallenge {
  /** base64url, as it goes into the options and comes back in `clientDataJSON.challenge`. */
  value: string;
  ceremony: WebAuthnCeremony;
  /** The session id or login attempt id it was given to (or a hash of it: compared as given). */
  boundTo: string;
  issuedAt: Date;
  expiresAt: Date;
  /** Null until redeemed; a redeemed challenge is never accepted again. */
  usedAt: Date | null;
}

export function newWebAuthnChallenge(
  random: Random,
  now: Date,
  target: { ceremony: WebAuthnCeremony; boundTo: string },
): WebAuthnChallenge {
  return {
    value: Buffer.from(random.bytes(CHALLENGE_BYTES)).toString('base64url'),
    ceremony: target.ceremony,
    boundTo: target.boundTo,
    issuedAt: now,
    expiresAt: new Date(now.getTime() + WEBAUTHN_CHALLENGE_TTL_S * 1000),
    usedAt: null,
  };
}

/** Why a challenge was not handed out; all of them end as `MFA_INVALID` for the client. */
export type WebAuthnChallengeRefusal = 'used' | 'expired' | 'other_ceremony' | 'other_owner';

export type WebAuthnChallengeRedemption =
  | { outcome: 'redeemed'; expectedChallenge: string; challenge: WebAuthnChallenge }
  | { outcome: 'refused'; reason: WebAuthnChallengeRefusal };

/**
 * Takes the challenge for one verification. `challenge` in the answer is the one to store back:
 * marked used, so a response replayed with the same challenge, or a second try after a failed
 * one, needs new options. The caller redeems before verifying, not after: a wrong response uses
 * the challenge up too.
 */
export function redeemWebAuthnChallenge(
  challenge: WebAuthnChallenge,
  presented: { ceremony: WebAuthnCeremony; boundTo: string },
  now: Date,
): WebAuthnChallengeRedemption {
  if (challenge.usedAt !== null) return { outcome: 'refused', reason: 'used' };
  if (now.getTime() >= challenge.expiresAt.getTime()) return { outcome: 'refused', reason: 'expired' };
  if (challenge.ceremony !== presented.ceremony) return { outcome: 'refused', reason: 'other_ceremony' };
  if (!sameText(challenge.boundTo, presented.boundTo)) return { outcome: 'refused', reason: 'other_owner' };
  return {
    outcome: 'redeemed',
    expectedChallenge: challenge.value,
    challenge: { ...challenge, usedAt: now },
  };
}

/** The binding may be a session id: compared in constant time. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
