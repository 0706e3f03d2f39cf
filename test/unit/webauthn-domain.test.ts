import { describe, expect, it } from 'vitest';
import {
  newWebAuthnChallenge,
  redeemWebAuthnChallenge,
  WEBAUTHN_CHALLENGE_TTL_S,
} from '../../src/domain/mfa/webauthn-challenge.js';
import { signCountAccepted, webAuthnUserHandle } from '../../src/domain/mfa/webauthn-rules.js';
import type { Random } from '../../src/domain/shared/random.port.js';
import { TestClock } from '../support/test-clock.js';

/** A random source that counts, so two challenges differ and a test can say what it drew. */
function countingRandom(): Random {
  let next = 0;
  return { bytes: (length) => Uint8Array.from({ length }, () => next++ & 0xff) };
}

const ATTEMPT = { ceremony: 'second_factor' as const, boundTo: 'session-1' };

describe('WebAuthn challenges', () => {
  it('are 32 random bytes in base64url, valid five minutes from the injected clock', () => {
    const clock = new TestClock(Date.UTC(2026, 10, 27, 12));
    const challenge = newWebAuthnChallenge(countingRandom(), clock.now(), ATTEMPT);
    expect(Buffer.from(challenge.value, 'base64url')).toEqual(
      Buffer.from(Array.from({ length: 32 }, (_, i) => i)),
    );
    expect(challenge.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge.expiresAt.getTime() - challenge.issuedAt.getTime()).toBe(
      WEBAUTHN_CHALLENGE_TTL_S * 1000,
    );
    expect(WEBAUTHN_CHALLENGE_TTL_S).toBe(300);
    expect(challenge.usedAt).toBeNull();
  });

  it('are redeemed once: what comes back is marked used and refused the second time', () => {
    const clock = new TestClock();
    const challenge = newWebAuthnChallenge(countingRandom(), clock.now(), ATTEMPT);
    clock.advanceSeconds(10);
    const first = redeemWebAuthnChallenge(challenge, ATTEMPT, clock.now());
    expect(first).toMatchObject({ outcome: 'redeemed', expectedChallenge: challenge.value });
    if (first.outcome !== 'redeemed') throw new Error('unreachable');
    expect(first.challenge.usedAt).toEqual(clock.now());
    expect(redeemWebAuthnChallenge(first.challenge, ATTEMPT, clock.now())).toEqual({
      outcome: 'refused',
      reason: 'used',
    });
  });

  it('expire after five minutes, not a millisecond later', () => {
    const clock = new TestClock();
    const challenge = newWebAuthnChallenge(countingRandom(), clock.now(), ATTEMPT);
    clock.advance(WEBAUTHN_CHALLENGE_TTL_S * 1000 - 1);
    expect(redeemWebAuthnChallenge(challenge, ATTEMPT, clock.now()).outcome).toBe('redeemed');
    clock.advance(1);
    expect(redeemWebAuthnChallenge(challenge, ATTEMPT, clock.now())).toEqual({
      outcome: 'refused',
      reason: 'expired',
    });
  });

  it('are bound to their session or attempt and to their ceremony', () => {
    const now = new Date();
    const challenge = newWebAuthnChallenge(countingRandom(), now, ATTEMPT);
    expect(redeemWebAuthnChallenge(challenge, { ...ATTEMPT, boundTo: 'session-2' }, now)).toEqual({
      outcome: 'refused',
      reason: 'other_owner',
    });
    expect(redeemWebAuthnChallenge(challenge, { ...ATTEMPT, boundTo: 'session-10' }, now)).toMatchObject({
      reason: 'other_owner',
    });
    expect(redeemWebAuthnChallenge(challenge, { ...ATTEMPT, ceremony: 'passkey_login' }, now)).toEqual({
      outcome: 'refused',
      reason: 'other_ceremony',
    });
    expect(redeemWebAuthnChallenge(challenge, { ...ATTEMPT, ceremony: 'registration' }, now)).toMatchObject({
      reason: 'other_ceremony',
    });
  });

  it('differ from one another', () => {
    const random = countingRandom();
    const now = new Date();
    expect(newWebAuthnChallenge(random, now, ATTEMPT).value).not.toBe(
      newWebAuthnChallenge(random, now, ATTEMPT).value,
    );
  });
});

describe('the signature counter rule of contract 3b', () => {
  it.each([
    [0, 0, true],
    [0, 1, true],
    [5, 6, true],
    [5, 5, false],
    [5, 4, false],
    [5, 0, false],
    [0xffff_fffe, 0xffff_ffff, true],
  ])('stored %i, presented %i: %s', (stored, presented, accepted) => {
    expect(signCountAccepted(stored, presented)).toBe(accepted);
  });
});

describe('the WebAuthn user handle', () => {
  it('is 32 bytes, the same for the same user, different for another, with no trace of the id', () => {
    const handle = webAuthnUserHandle('ann@example.com');
    expect(Buffer.from(handle, 'base64url')).toHaveLength(32);
    expect(webAuthnUserHandle('ann@example.com')).toBe(handle);
    expect(webAuthnUserHandle('bob@example.com')).not.toBe(handle);
    expect(Buffer.from(handle, 'base64url').toString('latin1')).not.toContain('ann');
  });
});
