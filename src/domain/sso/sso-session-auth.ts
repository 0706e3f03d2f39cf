import { SSO_SECOND_FACTOR_AMR } from '../session/session-auth.js';

/**
 * How an SSO session was made, read from its validated ID token (contract 3b): the provider's
 * `amr`, whether it vouched for a second factor, and when the user proved who they are there.
 */

/** What a provider demands of its tokens (`--require-mfa`, `--acr-values`; OIDC_REQUIRE_MFA, OIDC_ACR_VALUES). */
export interface SsoMfaRules {
  requireMfa: boolean;
  /** `acr` values that count as a second factor; empty: none does. */
  acrValues: readonly string[];
}

export const NO_SSO_MFA_RULES: SsoMfaRules = { requireMfa: false, acrValues: [] };

/** At most this many of the provider's `amr` values are kept, each at most MAX_AMR_LENGTH long. */
export const MAX_PROVIDER_AMR = 10;
export const MAX_AMR_LENGTH = 32;

/**
 * An `amr` value worth keeping: RFC 8176 values are short tokens. Nothing else passes (no comma,
 * space or control character): the values travel as the comma list `Gatehouse-Auth-Methods`.
 */
const AMR_VALUE = /^[A-Za-z0-9._:-]+$/;

export type SsoSessionAuth =
  | { vouched: boolean; amr: string[]; authTime: Date; refused?: undefined }
  /** The provider requires a second factor and the token vouched for none. */
  | { refused: 'sso_mfa_missing' };

/**
 * `amr`: `sso`, then the token's own values (strings of the safe form only, de-duplicated, at most
 * MAX_PROVIDER_AMR of at most MAX_AMR_LENGTH characters: a provider's junk cannot bloat every
 * session), then `mfa` when the token's `acr` is one of the provider's acr values.
 * `authTime`: the token's `auth_time` when it is a number not in the future; one older than the
 * session lifetime counts as that old, no older (a junk 0 is bounded, and a step-up asking for a
 * recent login still refuses it); otherwise now. Never later than the truth the token told.
 */
export function ssoSessionAuth(
  claims: Readonly<Record<string, unknown>>,
  rules: SsoMfaRules,
  now: Date,
  sessionLifetimeS: number,
): SsoSessionAuth {
  const providerAmr: string[] = [];
  if (Array.isArray(claims.amr)) {
    for (const value of claims.amr) {
      if (providerAmr.length >= MAX_PROVIDER_AMR) break;
      if (typeof value !== 'string' || value.length > MAX_AMR_LENGTH || !AMR_VALUE.test(value)) continue;
      if (value === 'sso' || providerAmr.includes(value)) continue;
      providerAmr.push(value);
    }
  }
  const acrMatched = typeof claims.acr === 'string' && rules.acrValues.includes(claims.acr);
  const vouched = acrMatched || providerAmr.some((value) => SSO_SECOND_FACTOR_AMR.includes(value));
  if (rules.requireMfa && !vouched) return { refused: 'sso_mfa_missing' };
  const amr = ['sso', ...providerAmr];
  if (acrMatched && !amr.includes('mfa')) amr.push('mfa');
  return { vouched, amr, authTime: authTimeOf(claims.auth_time, now, sessionLifetimeS) };
}

function authTimeOf(claim: unknown, now: Date, sessionLifetimeS: number): Date {
  if (typeof claim !== 'number' || !Number.isFinite(claim)) return now;
  const at = Math.floor(claim) * 1000;
  if (at > now.getTime()) return now;
  return new Date(Math.max(at, now.getTime() - sessionLifetimeS * 1000));
}
