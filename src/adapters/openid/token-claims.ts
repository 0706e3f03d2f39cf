import type { LogoutTokenClaims } from '../../domain/sso/openid-provider.port.js';
import { ssoError } from './openid-errors.js';

/**
 * What the adapter checks of a token's header and claims itself, once its signature verified:
 * for an ID token, what openid-client leaves unchecked; for a back-channel logout token, all of
 * it (openid-client has no logout token validator). Each refusal is SSO_INVALID naming the claim.
 */

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

type Claims = Record<string, unknown>;

/** Longest `sub` or `sid` kept: both are stored with each SSO session. */
const IDENTIFIER_MAX_LENGTH = 255;

function isBoundedIdentifier(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= IDENTIFIER_MAX_LENGTH;
}

/** An ID token's `typ`, when sent, says JWT: `logout+jwt`, `at+jwt` and the like are other tokens. */
function isIdTokenType(typ: unknown): boolean {
  return typeof typ === 'string' && ['jwt', 'application/jwt'].includes(typ.toLowerCase());
}

/** The time rules both token kinds share: clock skew tolerated, and now (seconds). */
export interface ClaimTimes {
  toleranceS: number;
  nowS: number;
}

function checkIssuedAt(iat: unknown, { toleranceS, nowS }: ClaimTimes): void {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw ssoError('SSO_INVALID', 'claim iat');
  if (iat > nowS + toleranceS) throw ssoError('SSO_INVALID', 'claim iat in the future');
}

/**
 * An ID token's checks beyond openid-client's (iss, aud and azp, exp, iat presence and nonce):
 * its type, an `iat` not in the future, bounded `sub` and `sid`, and an `azp` naming this client.
 */
export function checkIdTokenClaims(
  header: { typ?: unknown },
  claims: Claims,
  rules: ClaimTimes & { clientId: string },
): asserts claims is Claims & { sub: string } {
  // Token confusion (RFC 8725 3.11): a logout token or an access token is not an ID token.
  if (header.typ !== undefined && !isIdTokenType(header.typ)) throw ssoError('SSO_INVALID', 'header typ');
  checkIssuedAt(claims.iat, rules);
  if (!isBoundedIdentifier(claims.sub)) throw ssoError('SSO_INVALID', 'claim sub');
  if (claims.sid !== undefined && !isBoundedIdentifier(claims.sid))
    throw ssoError('SSO_INVALID', 'claim sid');
  // OpenID Connect Core 3.1.3.7 step 5: an azp, when present, names this client, whatever aud holds.
  if (claims.azp !== undefined && claims.azp !== rules.clientId) {
    throw ssoError('SSO_INVALID', 'claim azp');
  }
}

/** What a logout token must match: the discovered issuer, this client, and its largest age. */
export interface LogoutTokenRules extends ClaimTimes {
  issuer: string;
  clientId: string;
  maxAgeS: number;
}

/** A verified back-channel logout token's header and claims, checked (Back-Channel Logout 1.0, 2.4). */
export function logoutTokenClaims(
  header: { typ?: unknown },
  payload: Claims,
  rules: LogoutTokenRules,
): LogoutTokenClaims {
  const { issuer, toleranceS, nowS: now, maxAgeS } = rules;
  // Back-channel logout 1.0 section 2.4 / RFC 8725 section 3.11: explicit typing when sent.
  if (header.typ !== undefined) {
    const typ = typeof header.typ === 'string' ? header.typ.toLowerCase() : '';
    if (typ !== 'logout+jwt' && typ !== 'application/logout+jwt') throw ssoError('SSO_INVALID', 'header typ');
  }
  if (payload.iss !== issuer) throw ssoError('SSO_INVALID', 'claim iss');
  const aud = payload.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(rules.clientId)) throw ssoError('SSO_INVALID', 'claim aud');
  const iat = payload.iat;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw ssoError('SSO_INVALID', 'claim iat');
  if (iat > now + toleranceS) throw ssoError('SSO_INVALID', 'claim iat in the future');
  if (now - iat > maxAgeS) throw ssoError('SSO_INVALID', 'claim iat too old');
  // Back-Channel Logout 1.0 section 2.4: exp and jti are required; a token is accepted until
  // exp, or sooner maxAgeS past its iat.
  const exp = payload.exp;
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= now - toleranceS) {
    throw ssoError('SSO_INVALID', 'claim exp');
  }
  if (!isBoundedIdentifier(payload.jti)) throw ssoError('SSO_INVALID', 'claim jti');
  const acceptedUntilS = Math.min(exp + toleranceS, iat + maxAgeS);
  if (payload.nbf !== undefined) {
    if (typeof payload.nbf !== 'number' || payload.nbf > now + toleranceS) {
      throw ssoError('SSO_INVALID', 'claim nbf');
    }
  }
  const events = payload.events;
  const event =
    typeof events === 'object' && events !== null && !Array.isArray(events)
      ? (events as Claims)[BACKCHANNEL_LOGOUT_EVENT]
      : undefined;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw ssoError('SSO_INVALID', 'claim events');
  }
  if (payload.nonce !== undefined) throw ssoError('SSO_INVALID', 'claim nonce must be absent');
  const { sub, sid } = payload;
  if (sub !== undefined && !isBoundedIdentifier(sub)) throw ssoError('SSO_INVALID', 'claim sub');
  if (sid !== undefined && !isBoundedIdentifier(sid)) throw ssoError('SSO_INVALID', 'claim sid');
  if (sub === undefined && sid === undefined)
    throw ssoError('SSO_INVALID', 'claims sub and sid both missing');
  return {
    issuer,
    ...(typeof sub === 'string' ? { subject: sub } : {}),
    ...(typeof sid === 'string' ? { sid } : {}),
    tokenId: payload.jti,
    acceptedUntil: new Date(acceptedUntilS * 1000),
  };
}
