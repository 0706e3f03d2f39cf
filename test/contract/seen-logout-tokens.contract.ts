import { beforeEach, describe, expect, it } from 'vitest';
import type { SeenLogoutTokens } from '../../src/domain/sso/seen-logout-tokens.port.js';
import { at, T0 } from './user-repository.contract.js';

/** The behaviour every SeenLogoutTokens must show. `open` gives an empty store. */
export function seenLogoutTokensContract(open: () => Promise<SeenLogoutTokens>): void {
  describe('SeenLogoutTokens contract', () => {
    let seen: SeenLogoutTokens;
    beforeEach(async () => {
      seen = await open();
    });

    it('grants a token’s first use only, per issuer', async () => {
      expect(await seen.firstUse('https://idp.example', 'j1', at(120), T0)).toBe(true);
      expect(await seen.firstUse('https://idp.example', 'j1', at(120), at(10))).toBe(false);
      expect(await seen.firstUse('https://other.example', 'j1', at(120), at(10))).toBe(true);
    });

    it('grants exactly one of many concurrent first uses', async () => {
      const granted = await Promise.all(
        Array.from({ length: 20 }, () => seen.firstUse('https://idp.example', 'j-race', at(120), T0)),
      );
      expect(granted.filter(Boolean)).toHaveLength(1);
    });

    it('forgets a record once it expired, and purges expired records only', async () => {
      await seen.firstUse('https://idp.example', 'old', at(60), T0);
      await seen.firstUse('https://idp.example', 'new', at(600), T0);
      expect(await seen.firstUse('https://idp.example', 'old', at(700), at(61))).toBe(true);
      expect(await seen.purgeExpired(at(650), 100)).toBe(1);
      expect(await seen.firstUse('https://idp.example', 'old', at(800), at(650))).toBe(false);
    });
  });
}
