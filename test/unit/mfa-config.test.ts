import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/boot/config/config.js';

function problems(environment: Record<string, string>): string[] {
  try {
    loadConfig(environment);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(environment)}`);
}

describe('second-factor settings (contract 3b, section 7)', () => {
  it('defaults: no level requires a factor, pending sessions live 300 s, no relying party without origins', () => {
    const { mfa } = loadConfig({});
    expect(mfa.requiredLevels).toEqual([]);
    expect(mfa.pendingTtlS).toBe(300);
    expect(mfa.webauthn).toEqual({ rpId: null, rpName: 'Gatehouse', origins: [] });
  });

  it('takes the relying party id from the first TRUSTED_ORIGINS entry', () => {
    const { mfa } = loadConfig({
      TRUSTED_ORIGINS: 'https://portal.example.com:8443,https://other.example.org',
    });
    expect(mfa.webauthn.rpId).toBe('portal.example.com');
    expect(mfa.webauthn.origins).toEqual(['https://portal.example.com:8443', 'https://other.example.org']);
  });

  it('accepts a parent domain of a trusted origin as the relying party id, and refuses an unrelated one', () => {
    const origins = { TRUSTED_ORIGINS: 'https://portal.example.com' };
    expect(loadConfig({ ...origins, WEBAUTHN_RP_ID: 'example.com' }).mfa.webauthn.rpId).toBe('example.com');
    expect(problems({ ...origins, WEBAUTHN_RP_ID: 'example.org' })[0]).toMatch(/^WEBAUTHN_RP_ID:/);
    expect(problems({ ...origins, WEBAUTHN_RP_ID: 'ample.com' })[0]).toMatch(/^WEBAUTHN_RP_ID:/);
    expect(problems({ WEBAUTHN_RP_ID: 'https://example.com' })[0]).toMatch(/^WEBAUTHN_RP_ID:/);
  });

  it('reads MFA_REQUIRED_LEVELS as user levels and names a wrong one', () => {
    expect(loadConfig({ MFA_REQUIRED_LEVELS: '12,16,16' }).mfa.requiredLevels).toEqual([12, 16]);
    expect(problems({ MFA_REQUIRED_LEVELS: '12,7' })).toEqual([
      'MFA_REQUIRED_LEVELS: "7" is not a user level (0, 4, 8, 12, 16)',
    ]);
  });

  it('bounds MFA_PENDING_TTL_S', () => {
    expect(loadConfig({ MFA_PENDING_TTL_S: '60' }).mfa.pendingTtlS).toBe(60);
    expect(problems({ MFA_PENDING_TTL_S: '5' })[0]).toMatch(/^MFA_PENDING_TTL_S:/);
    expect(problems({ MFA_PENDING_TTL_S: '86400' })[0]).toMatch(/^MFA_PENDING_TTL_S:/);
  });
});
