import { TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import { OtpauthTotpAuthenticator } from '../../src/adapters/totp/otpauth-totp-authenticator.js';
import type { Random } from '../../src/domain/shared/random.port.js';
import { TestClock } from '../support/test-clock.js';

/** RFC 6238 appendix B's SHA-1 seed, "12345678901234567890", in base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

function authenticatorAt(unixSeconds: number, random: Random = nodeRandom): OtpauthTotpAuthenticator {
  return new OtpauthTotpAuthenticator(new TestClock(unixSeconds * 1000), random);
}

/** The code of `step` for `secret`, from the library as an independent reference. */
function codeOfStep(secret: string, step: number): string {
  return new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: step * 30_000,
  });
}

describe('TOTP over otpauth (RFC 6238: SHA-1, 6 digits, 30 s)', () => {
  // Appendix B's 8-digit values, last 6 digits (dynamic truncation modulo 10^6).
  it.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1111111111, '050471'],
    [1234567890, '005924'],
    [2000000000, '279037'],
    [20000000000, '353130'],
  ])('matches RFC 6238 at T=%i: %s, answering the time step', (seconds, code) => {
    expect(authenticatorAt(seconds).matchingStep(RFC_SECRET, code)).toBe(Math.floor(seconds / 30));
  });

  it('accepts one step either side of now, no more, and says which step matched', () => {
    const now = 1_800_000_015; // inside step 60,000,000
    const step = Math.floor(now / 30);
    const authenticator = authenticatorAt(now);
    for (const delta of [-1, 0, 1]) {
      expect(authenticator.matchingStep(RFC_SECRET, codeOfStep(RFC_SECRET, step + delta))).toBe(step + delta);
    }
    for (const delta of [-3, -2, 2, 3]) {
      expect(authenticator.matchingStep(RFC_SECRET, codeOfStep(RFC_SECRET, step + delta))).toBeNull();
    }
  });

  it('reads the time from its clock, not from the caller', () => {
    const clock = new TestClock(59_000);
    const authenticator = new OtpauthTotpAuthenticator(clock, nodeRandom);
    expect(authenticator.matchingStep(RFC_SECRET, '287082')).toBe(1);
    clock.advanceSeconds(3600);
    expect(authenticator.matchingStep(RFC_SECRET, '287082')).toBeNull();
  });

  it.each(['', '28708', '2870820', ' 287082', '287 082', 'abcdef', '２８７０８２'])(
    'refuses %j: not six ASCII digits',
    (code) => {
      expect(authenticatorAt(59).matchingStep(RFC_SECRET, code)).toBeNull();
    },
  );

  it('refuses a right code of another secret', () => {
    const other = authenticatorAt(0).newSecret();
    expect(authenticatorAt(59).matchingStep(other, '287082')).toBeNull();
  });

  it('makes a 160-bit base32 secret from the injected random source', () => {
    const asked: number[] = [];
    const counting: Random = {
      bytes: (length) => {
        asked.push(length);
        return new Uint8Array(length).fill(0xa5);
      },
    };
    const secret = authenticatorAt(0, counting).newSecret();
    expect(asked).toEqual([20]);
    expect(secret).toBe('UWS2LJNFUWS2LJNFUWS2LJNFUWS2LJNF');
    const fresh = authenticatorAt(0).newSecret();
    expect(fresh).toMatch(/^[A-Z2-7]{32}$/);
    expect(fresh).not.toBe(authenticatorAt(0).newSecret());
  });

  it('writes the otpauth:// URI an authenticator app reads, labelled issuer:account', () => {
    const authenticator = authenticatorAt(59);
    const uri = new URL(
      authenticator.provisioningUri(RFC_SECRET, { issuer: 'Gatehouse', account: 'ann@example.com' }),
    );
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Gatehouse:ann@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: RFC_SECRET,
      issuer: 'Gatehouse',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});
