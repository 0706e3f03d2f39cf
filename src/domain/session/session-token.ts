import { createHash } from 'node:crypto';
import type { Random } from '../shared/random.port.js';

/** 32 bytes = 256 bits from the CSPRNG (contract 3; ASVS 7.2.3 asks for at least 128). */
export const SESSION_TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newSessionToken(random: Random): string {
  return Buffer.from(random.bytes(SESSION_TOKEN_BYTES)).toString('base64url');
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
