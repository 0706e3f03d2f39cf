/**
 * What the store contract suites share: their clock, the sessions they create, and how a suite
 * names the capabilities it tested. `contractSession` and `contractSsoData` are public (adopters'
 * own suites and ours build sessions with them); the rest serves the suites.
 */
import { randomBytes } from 'node:crypto';
import type { SessionRecord, SsoSessionData, StoredSession } from '../domain/session/session.js';
import type { SessionAuth } from '../domain/session/session-auth.js';

/**
 * The suite's times are around now (a store may compare `keepUntil` with its own clock), taken
 * again by each suite: this module may stay loaded for a whole test run, longer than a window.
 */
export let T0 = wholeSecondNow();

/** Each suite takes its times afresh (see above). */
export function restartContractClock(): void {
  T0 = wholeSecondNow();
}

function wholeSecondNow(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}
export const HOUR_S = 3600;
export const IDLE_S = 1800;

export function at(seconds: number, from: Date = T0): Date {
  return new Date(from.getTime() + seconds * 1000);
}

export function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A password session created at `createdAt`, last seen then, expiring 12 h later. */
export function contractSession(userId: string, overrides: Partial<StoredSession> = {}): StoredSession {
  const createdAt = overrides.createdAt ?? T0;
  return {
    tokenHash: hex(32),
    handle: hex(16),
    userId,
    method: 'password',
    createdAt,
    lastSeenAt: createdAt,
    expiresAt: at(12 * HOUR_S, createdAt),
    clientAddress: '192.0.2.10',
    userAgent: 'Mozilla/5.0 (contract test)',
    sso: null,
    ...overrides,
  };
}

/**
 * A session's `auth` (how and when it was made, contract 3b): by default a full session made with
 * a password and a TOTP code. Its time has a millisecond part on purpose: a store keeps `authTime`
 * to the millisecond (docs/stores.md "What a store must keep").
 */
export function contractAuth(overrides: Partial<SessionAuth> = {}): SessionAuth {
  return {
    stage: 'full',
    amr: ['pwd', 'otp'],
    authTime: new Date(T0.getTime() - 61_234),
    ...overrides,
  };
}

/** The provider and issuer of `contractSsoData`'s sessions. */
export const ACME = { provider: 'acme', issuer: 'https://idp.example' } as const;

/** SSO data for a contract session: a provider reference and (sealed) tokens. */
export function contractSsoData(overrides: Partial<SsoSessionData> = {}): SsoSessionData {
  return {
    provider: 'acme',
    issuer: 'https://idp.example',
    subject: `sub-${hex(4)}`,
    sid: `sid-${hex(4)}`,
    idToken: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
    accessTokenSealed: 'v1.sealed-access',
    refreshTokenSealed: 'v1.sealed-refresh',
    ...overrides,
  };
}

export const byHandle = (a: SessionRecord, b: SessionRecord) => (a.handle < b.handle ? -1 : 1);

export function declaredOf(capabilities: object, known: readonly string[]): string[] {
  return known.filter((name) => (capabilities as Record<string, unknown>)[name] !== undefined).sort();
}

export function suiteName(kind: string, name: string, known: readonly string[], declares: readonly string[]) {
  const missing = known.filter((capability) => !declares.includes(capability));
  return (
    `${kind} contract [${name}] (capabilities tested: ${declares.join(', ') || 'none'}; ` +
    `not declared, their tests not registered: ${missing.join(', ') || 'none'})`
  );
}
