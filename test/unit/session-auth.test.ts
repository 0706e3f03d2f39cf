import { describe, expect, it } from 'vitest';
import {
  authTimeSeconds,
  madeWithTwoFactors,
  type SessionAuth,
  sessionAuthOf,
  stepUpRefusal,
} from '../../src/domain/session/session-auth.js';
import {
  hashSessionToken,
  isPendingSessionToken,
  isWellFormedSessionToken,
  newSessionToken,
} from '../../src/domain/session/session-token.js';

const createdAt = new Date('2026-11-27T10:00:00Z');
const random = { bytes: (n: number) => new Uint8Array(n).fill(7) };

describe('a pending session token (contract 3b)', () => {
  it('carries a mark the whole hashed value includes', () => {
    const full = newSessionToken(random);
    const pending = newSessionToken(random, true);
    expect(pending).toBe(`mfa.${full}`);
    expect(isPendingSessionToken(pending)).toBe(true);
    expect(isPendingSessionToken(full)).toBe(false);
    expect(isWellFormedSessionToken(pending)).toBe(true);
    // Taking the mark off names another session: the hash differs.
    expect(hashSessionToken(pending)).not.toBe(hashSessionToken(full));
  });

  it('refuses other marks and lengths', () => {
    const full = newSessionToken(random);
    expect(isWellFormedSessionToken(`mfb.${full}`)).toBe(false);
    expect(isWellFormedSessionToken(`mfa.${full}x`)).toBe(false);
    expect(isWellFormedSessionToken(`mfa.mfa.${full}`)).toBe(false);
  });
});

describe('sessionAuthOf fails closed', () => {
  const stored = (auth?: SessionAuth) => ({
    method: 'password' as const,
    createdAt,
    ...(auth ? { auth } : {}),
  });

  it('a session stored before second factors reads as its login method, made when created', () => {
    expect(sessionAuthOf(stored(), false)).toEqual({ stage: 'full', amr: ['pwd'], authTime: createdAt });
    expect(sessionAuthOf({ method: 'sso', createdAt }, false)).toEqual({
      stage: 'full',
      amr: ['sso'],
      authTime: createdAt,
    });
  });

  it('a pending token stays pending when the store lost the facts, or says full', () => {
    expect(sessionAuthOf(stored(), true).stage).toBe('second_factor');
    const full = { stage: 'full' as const, amr: ['pwd', 'otp'], authTime: createdAt };
    expect(sessionAuthOf(stored(full), true)).toEqual({ ...full, stage: 'second_factor' });
  });

  it('keeps the enrolment stage of a pending token, and a pending record of a full token stays pending', () => {
    const enrolment = { stage: 'enrolment' as const, amr: ['pwd'], authTime: createdAt };
    expect(sessionAuthOf(stored(enrolment), true).stage).toBe('enrolment');
    expect(sessionAuthOf(stored(enrolment), false).stage).toBe('enrolment');
  });
});

describe('two factors and step-up', () => {
  const auth = (amr: string[], authTime = createdAt): SessionAuth => ({ stage: 'full', amr, authTime });

  it.each([
    [['pwd'], false],
    [['pwd', 'otp'], true],
    [['pwd', 'hwk'], true],
    [['pwd', 'recovery'], true],
    [['hwk', 'mfa'], true],
    [['sso'], false],
    [['sso', 'pwd'], false],
    [['sso', 'pwd', 'otp'], true],
    [['sso', 'swk'], true],
    [['sso', 'recovery'], false],
    [['sso', 'mfa'], true],
    [['otp'], false],
    [[], false],
  ])('amr %j: two factors %s', (amr, expected) => {
    expect(madeWithTwoFactors(auth(amr))).toBe(expected);
  });

  it('answers MFA_REQUIRED before REAUTHENTICATION_REQUIRED, and nothing when met', () => {
    const now = new Date(createdAt.getTime() + 301_000);
    expect(stepUpRefusal(auth(['pwd']), { requireMfa: true, maxAuthAgeS: 300 }, now)).toBe('MFA_REQUIRED');
    expect(stepUpRefusal(auth(['pwd', 'otp']), { requireMfa: true, maxAuthAgeS: 300 }, now)).toBe(
      'REAUTHENTICATION_REQUIRED',
    );
    expect(stepUpRefusal(auth(['pwd', 'otp']), { requireMfa: true, maxAuthAgeS: 301 }, now)).toBeNull();
    expect(stepUpRefusal(auth(['pwd']), {}, now)).toBeNull();
  });

  it('gives auth_time in Unix seconds', () => {
    expect(authTimeSeconds(auth(['pwd'], new Date(1_700_000_000_999)))).toBe(1_700_000_000);
  });
});
