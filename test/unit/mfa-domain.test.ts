import { describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { STATUS_BY_CODE } from '../../src/adapters/http/problem.js';
import {
  mfaInvalid,
  mfaNotApplicable,
  mfaNotConfigured,
  mfaRequired,
} from '../../src/domain/mfa/mfa-errors.js';
import {
  isConfirmed,
  isEnrolmentOpen,
  mfaMethodsOf,
  type TotpFactor,
  type UserFactors,
  type WebAuthnCredential,
} from '../../src/domain/mfa/mfa-factor.js';
import { openTotpSecret, sealTotpSecret } from '../../src/domain/mfa/totp-secret-sealing.js';
import { DomainError, isDomainError } from '../../src/domain/shared/domain-error.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

function totp(overrides: Partial<TotpFactor> = {}): TotpFactor {
  return {
    factorId: 'f-1',
    userId: 'u-1',
    sealedSecret: 'sealed',
    createdAt: T0,
    confirmedAt: T0,
    lastAcceptedStep: 1,
    ...overrides,
  };
}

const key = { credentialId: 'c-1' } as WebAuthnCredential;
const none: UserFactors = { totp: null, webauthn: [], recoveryCodesLeft: 0 };

describe('second factors: which methods finish a login', () => {
  it.each<[string, UserFactors, string[]]>([
    ['none', none, []],
    ['a confirmed TOTP', { ...none, totp: totp() }, ['totp']],
    ['a pending TOTP only', { ...none, totp: totp({ confirmedAt: null }) }, []],
    [
      'a passkey and codes',
      { ...none, webauthn: [key], recoveryCodesLeft: 3 },
      ['webauthn', 'recovery_code'],
    ],
    [
      'all three',
      { totp: totp(), webauthn: [key], recoveryCodesLeft: 1 },
      ['totp', 'webauthn', 'recovery_code'],
    ],
    ['codes left without a factor', { ...none, recoveryCodesLeft: 10 }, []],
    ['a TOTP with every code used', { ...none, totp: totp(), recoveryCodesLeft: 0 }, ['totp']],
  ])('%s', (_, factors, methods) => {
    expect(mfaMethodsOf(factors)).toEqual(methods);
  });

  it('tells a confirmed factor from a pending one', () => {
    expect(isConfirmed(totp())).toBe(true);
    expect(isConfirmed(totp({ confirmedAt: null }))).toBe(false);
    expect(isConfirmed(null)).toBe(false);
  });

  it('keeps an enrolment open for five minutes from its start', () => {
    const pending = totp({ confirmedAt: null });
    expect(isEnrolmentOpen(pending, new Date(T0.getTime() + 299_999))).toBe(true);
    expect(isEnrolmentOpen(pending, new Date(T0.getTime() + 300_000))).toBe(false);
    expect(isEnrolmentOpen(totp(), T0)).toBe(false);
  });
});

describe('TOTP secrets sealed with TOKEN_ENCRYPTION_KEY', () => {
  const sealer = AesTokenSealer.random();
  const owner = { userId: 'u-1', factorId: 'f-1' };

  it('opens for the same user and factor only', () => {
    const sealed = sealTotpSecret(sealer, secret, owner);
    expect(sealed).not.toContain(secret);
    expect(openTotpSecret(sealer, sealed, owner)).toBe(secret);
    expect(openTotpSecret(sealer, sealed, { ...owner, userId: 'u-2' })).toBeNull();
    expect(openTotpSecret(sealer, sealed, { ...owner, factorId: 'f-2' })).toBeNull();
    expect(openTotpSecret(AesTokenSealer.random(), sealed, owner)).toBeNull();
  });

  it('is refused without the key, naming the variable (409 MFA_NOT_CONFIGURED)', () => {
    for (const attempt of [
      () => sealTotpSecret(null, secret, owner),
      () => openTotpSecret(null, 'x', owner),
    ]) {
      const error = (() => {
        try {
          attempt();
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('MFA_NOT_CONFIGURED');
      expect((error as DomainError).message).toContain('TOKEN_ENCRYPTION_KEY');
    }
  });
});

describe('second-factor errors (contract 3b)', () => {
  it.each([
    [mfaInvalid(), 'MFA_INVALID', 401],
    [mfaRequired(), 'MFA_REQUIRED', 403],
    [mfaNotConfigured('WEBAUTHN_RP_ID'), 'MFA_NOT_CONFIGURED', 409],
    [mfaNotApplicable(), 'MFA_NOT_APPLICABLE', 403],
  ])('%s has its code and status', (error, code, status) => {
    expect(isDomainError(error)).toBe(true);
    expect(error.code).toBe(code);
    expect(STATUS_BY_CODE[error.code]).toBe(status);
  });

  it('answers step-up refusals as the contract says', () => {
    expect(STATUS_BY_CODE.REAUTHENTICATION_REQUIRED).toBe(403);
  });
});
