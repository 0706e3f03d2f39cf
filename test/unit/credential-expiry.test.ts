import { describe, expect, it } from 'vitest';
import { credentialExpiry } from '../../src/domain/profile/credential-expiry.js';

const DAY_MS = 86_400_000;
const CHANGED = new Date('2024-01-01T09:30:00.000Z');
// 2024 is a leap year: 90 days after 1 January is 31 March.
const DEADLINE_90 = new Date('2024-03-31T09:30:00.000Z');

function at(base: Date, ms: number): Date {
  return new Date(base.getTime() + ms);
}

function subject(
  overrides: Partial<{
    passwordChangedAt: Date | null;
    credentialsExpireAt: Date | null;
    mustChangePassword: boolean;
    createdAt: Date;
  }> = {},
) {
  return {
    passwordChangedAt: CHANGED,
    credentialsExpireAt: null,
    mustChangePassword: false,
    createdAt: new Date('2023-06-01T00:00:00.000Z'),
    ...overrides,
  };
}

describe('credentialExpiry: maximum password age', () => {
  it('is not relevant when the maximum age is off and nothing else applies', () => {
    expect(credentialExpiry(subject(), 0, at(CHANGED, 10_000 * DAY_MS))).toStrictEqual({
      isExpired: false,
      expiresInDays: null,
      relevant: false,
    });
  });

  it('counts whole days left from the last password change', () => {
    expect(credentialExpiry(subject(), 90, CHANGED)).toStrictEqual({
      isExpired: false,
      expiresInDays: 90,
      relevant: true,
    });
    expect(credentialExpiry(subject(), 90, at(CHANGED, 1)).expiresInDays).toBe(89);
    expect(credentialExpiry(subject(), 90, at(CHANGED, DAY_MS)).expiresInDays).toBe(89);
    expect(credentialExpiry(subject(), 90, at(CHANGED, DAY_MS + 1)).expiresInDays).toBe(88);
    expect(credentialExpiry(subject(), 90, new Date('2024-03-01T09:30:00.000Z')).expiresInDays).toBe(30);
  });

  it('gives 0 days, not yet expired, on the last day', () => {
    const lastDayStart = at(DEADLINE_90, -DAY_MS + 1);
    expect(credentialExpiry(subject(), 90, lastDayStart)).toStrictEqual({
      isExpired: false,
      expiresInDays: 0,
      relevant: true,
    });
    expect(credentialExpiry(subject(), 90, at(DEADLINE_90, -1))).toStrictEqual({
      isExpired: false,
      expiresInDays: 0,
      relevant: true,
    });
    expect(credentialExpiry(subject(), 90, at(DEADLINE_90, -DAY_MS)).expiresInDays).toBe(1);
  });

  it('is expired from the deadline on, with 0 days left', () => {
    expect(credentialExpiry(subject(), 90, DEADLINE_90)).toStrictEqual({
      isExpired: true,
      expiresInDays: 0,
      relevant: true,
    });
    expect(credentialExpiry(subject(), 90, at(DEADLINE_90, 400 * DAY_MS))).toStrictEqual({
      isExpired: true,
      expiresInDays: 0,
      relevant: true,
    });
  });

  it('counts from the account creation when no password change is recorded', () => {
    const created = new Date('2024-02-01T00:00:00.000Z');
    const status = credentialExpiry(
      subject({ passwordChangedAt: null, createdAt: created }),
      30,
      new Date('2024-02-11T00:00:00.000Z'),
    );
    expect(status).toStrictEqual({ isExpired: false, expiresInDays: 20, relevant: true });
    expect(
      credentialExpiry(subject({ passwordChangedAt: null, createdAt: created }), 30, at(created, 30 * DAY_MS))
        .isExpired,
    ).toBe(true);
  });
});

describe('credentialExpiry: explicit expiry date', () => {
  const expireAt = new Date('2024-01-11T09:30:00.000Z');

  it('applies with the maximum age off', () => {
    expect(credentialExpiry(subject({ credentialsExpireAt: expireAt }), 0, CHANGED)).toStrictEqual({
      isExpired: false,
      expiresInDays: 10,
      relevant: true,
    });
    expect(credentialExpiry(subject({ credentialsExpireAt: expireAt }), 0, at(expireAt, -1))).toStrictEqual({
      isExpired: false,
      expiresInDays: 0,
      relevant: true,
    });
    expect(credentialExpiry(subject({ credentialsExpireAt: expireAt }), 0, expireAt)).toStrictEqual({
      isExpired: true,
      expiresInDays: 0,
      relevant: true,
    });
  });

  it('wins over the maximum age when it comes first, and the other way round', () => {
    // Explicit date 10 days away, max age 90 days away: 10.
    expect(credentialExpiry(subject({ credentialsExpireAt: expireAt }), 90, CHANGED).expiresInDays).toBe(10);
    // Max age 5 days away, explicit date 10 days away: 5.
    expect(credentialExpiry(subject({ credentialsExpireAt: expireAt }), 5, CHANGED).expiresInDays).toBe(5);
    expect(
      credentialExpiry(subject({ credentialsExpireAt: expireAt }), 5, at(CHANGED, 5 * DAY_MS)).isExpired,
    ).toBe(true);
  });
});

describe('credentialExpiry: administrator-set password (mustChangePassword)', () => {
  it('is expired at once, with no days when no deadline applies', () => {
    expect(credentialExpiry(subject({ mustChangePassword: true }), 0, CHANGED)).toStrictEqual({
      isExpired: true,
      expiresInDays: null,
      relevant: true,
    });
  });

  it('is expired even when the maximum age leaves days', () => {
    const status = credentialExpiry(subject({ mustChangePassword: true }), 90, CHANGED);
    expect(status.isExpired).toBe(true);
    expect(status.relevant).toBe(true);
  });
});
