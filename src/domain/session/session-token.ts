import { createHash } from 'node:crypto';
import type { Random } from '../shared/random.port.js';

/** 32 bytes = 256 bits from the CSPRNG (contract 3; ASVS 7.2.3 asks for at least 128). */
export const SESSION_TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^(?:mfa\.)?[A-Za-z0-9_-]{43}$/;

/**
 * The mark of a pending session's token (contract 3b: waiting for its second factor). The cookie
 * value itself says so, and the whole value is what is hashed, so a client cannot take the mark
 * off, and a store that loses the session's stage cannot make it a full one (`sessionAuthOf`).
 */
const PENDING_MARK = 'mfa.';

export function newSessionToken(random: Random, pending = false): string {
  const value = Buffer.from(random.bytes(SESSION_TOKEN_BYTES)).toString('base64url');
  return pending ? PENDING_MARK + value : value;
}

export function isPendingSessionToken(value: string): boolean {
  return value.startsWith(PENDING_MARK);
}

/** Anything else cannot be a token we issued: refused without touching the store. */
export function isWellFormedSessionToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** Only this hash is stored, so a copy of the database cannot be replayed as cookies. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** An opaque handle for listing sessions; unrelated to the token. */
export function newSessionHandle(random: Random): string {
  return Buffer.from(random.bytes(12)).toString('base64url');
}
