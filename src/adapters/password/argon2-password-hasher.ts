import { randomBytes } from 'node:crypto';
import { type Algorithm, hash as argon2Hash, verify as argon2Verify, type Version } from '@node-rs/argon2';
import type { PasswordHasher } from '../../domain/password/password-hasher.port.js';
import { isBcryptHash, verifyBcrypt } from './bcrypt-legacy.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { DJANGO_PBKDF2_PREFIX, isDjangoPbkdf2Hash, verifyDjangoPbkdf2 } from './django-pbkdf2.js';

export interface Argon2Params {
  /** Memory cost in KiB (`m=` in the PHC string). */
  memoryKiB: number;
  /** Number of passes (`t=`). */
  timeCost: number;
  /** Lanes (`p=`). */
  parallelism: number;
}

/** OWASP ASVS appendix C / password storage cheat sheet: argon2id, m = 19 MiB, t = 2, p = 1. */
export const DEFAULT_ARGON2_PARAMS: Readonly<Argon2Params> = Object.freeze({
  memoryKiB: 19_456,
  timeCost: 2,
  parallelism: 1,
});

/** Upper bounds for the configured parameters (ARGON2_*): beyond them the configuration is refused. */
const MAX_CONFIGURED_PARAMS: Readonly<Argon2Params> = Object.freeze({
  memoryKiB: 1_048_576, // 1 GiB
  timeCost: 64,
  parallelism: 16,
});

/**
 * Upper bounds for the parameters of a *stored* hash that this service did not make: an import
 * asking for more is refused, naming the line, and such a stored hash is treated as unusable, so
 * one account cannot make each of its logins allocate a gigabyte or run for seconds. Hashes made
 * with the configured parameters are always within bounds.
 */
const SANE_STORED_PARAMS: Readonly<Argon2Params> = Object.freeze({
  memoryKiB: 65_536, // 64 MiB, three times OWASP's recommendation
  timeCost: 10,
  parallelism: 4,
});

// `Algorithm` and `Version` are ambient const enums, which isolated modules cannot read.
const ARGON2ID = 2 as Algorithm;
const V0x13 = 1 as Version;

/** Longest stored hash examined at all; real ones are about 100 characters. */
const MAX_STORED_LENGTH = 512;

const ARGON2ID_PHC =
  /^\$argon2id\$v=([0-9]{1,3})\$m=([0-9]{1,10}),t=([0-9]{1,10}),p=([0-9]{1,3})\$([A-Za-z0-9+/]{11,64})\$([A-Za-z0-9+/]{16,128})$/;

interface ParsedArgon2id {
  version: number;
  memoryKiB: number;
  timeCost: number;
  parallelism: number;
}

function parseArgon2id(stored: string, bounds: Readonly<Argon2Params>): ParsedArgon2id | undefined {
  if (stored.length > MAX_STORED_LENGTH) return undefined;
  const match = ARGON2ID_PHC.exec(stored);
  if (!match) return undefined;
  // Unpadded base64 never has a length of 4n + 1.
  if (match[5]!.length % 4 === 1 || match[6]!.length % 4 === 1) return undefined;
  const parsed = {
    version: Number(match[1]),
    memoryKiB: Number(match[2]),
    timeCost: Number(match[3]),
    parallelism: Number(match[4]),
  };
  if (parsed.version !== 16 && parsed.version !== 19) return undefined;
  if (parsed.parallelism < 1 || parsed.parallelism > bounds.parallelism) return undefined;
  if (parsed.timeCost < 1 || parsed.timeCost > bounds.timeCost) return undefined;
  if (parsed.memoryKiB < 8 * parsed.parallelism || parsed.memoryKiB > bounds.memoryKiB) {
    return undefined;
  }
  return parsed;
}

function checkParams(params: Argon2Params): Argon2Params {
  const { memoryKiB, timeCost, parallelism } = params;
  for (const [name, value] of Object.entries(params)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`argon2 ${name} must be a positive integer, got ${String(value)}`);
    }
  }
  if (parallelism > MAX_CONFIGURED_PARAMS.parallelism) {
    throw new RangeError(`argon2 parallelism must be at most ${MAX_CONFIGURED_PARAMS.parallelism}`);
  }
  if (timeCost > MAX_CONFIGURED_PARAMS.timeCost) {
    throw new RangeError(`argon2 timeCost must be at most ${MAX_CONFIGURED_PARAMS.timeCost}`);
  }
  if (memoryKiB < 8 * parallelism || memoryKiB > MAX_CONFIGURED_PARAMS.memoryKiB) {
    throw new RangeError(
      `argon2 memoryKiB must be between 8 x parallelism and ${MAX_CONFIGURED_PARAMS.memoryKiB}, got ${memoryKiB}`,
    );
  }
  return { memoryKiB, timeCost, parallelism };
}

/**
 * Hashes with argon2id (PHC strings) through @node-rs/argon2, whose async functions run on a
 * worker thread, off the event loop. Verifies argon2id, and, for imported users, Django
 * pbkdf2_sha256 and bcrypt hashes; those (and weaker argon2id ones) report `needsRehash`.
 */
export class Argon2PasswordHasher implements PasswordHasher {
  private readonly params: Readonly<Argon2Params>;
  /** The sane bounds, raised to the configured parameters where those are higher. */
  private readonly storedBounds: Readonly<Argon2Params>;
  private dummyHash: Promise<string> | undefined;
  /**
   * Legacy verifications running at once: half the hashing threads (UV_THREADPOOL_SIZE, at least
   * one), so however many imported accounts are tried together, argon2id logins keep the rest.
   */
  private readonly legacyGate: ConcurrencyGate;

  constructor(options: Partial<Argon2Params> & { legacyConcurrency?: number } = {}) {
    const { legacyConcurrency, ...params } = options;
    this.legacyGate = new ConcurrencyGate(
      legacyConcurrency ?? Math.max(1, Math.floor(Number(process.env.UV_THREADPOOL_SIZE ?? 4) / 2)),
    );
    this.params = Object.freeze(checkParams({ ...DEFAULT_ARGON2_PARAMS, ...params }));
    this.storedBounds = Object.freeze({
      memoryKiB: Math.max(SANE_STORED_PARAMS.memoryKiB, this.params.memoryKiB),
      timeCost: Math.max(SANE_STORED_PARAMS.timeCost, this.params.timeCost),
      parallelism: Math.max(SANE_STORED_PARAMS.parallelism, this.params.parallelism),
    });
  }

  /** The parameters new hashes are made with. */
  get parameters(): Readonly<Argon2Params> {
    return this.params;
  }

  hash(password: string): Promise<string> {
    return argon2Hash(password, this.options());
  }

  async verify(stored: string, password: string): Promise<boolean> {
    if (typeof stored !== 'string' || typeof password !== 'string') return false;
    if (stored.startsWith('$argon2id$')) {
      if (parseArgon2id(stored, this.storedBounds) === undefined) return this.verifyDummy(password);
      try {
        return await argon2Verify(stored, password);
      } catch {
        return false;
      }
    }
    if (stored.startsWith(DJANGO_PBKDF2_PREFIX)) {
      if (!isDjangoPbkdf2Hash(stored)) return this.verifyDummy(password);
      return this.verifyLegacy(() => verifyDjangoPbkdf2(stored, password), password);
    }
    if (stored.startsWith('$2')) {
      if (!isBcryptHash(stored)) return this.verifyDummy(password);
      return this.verifyLegacy(() => verifyBcrypt(stored, password), password);
    }
    // Unknown or unusable (e.g. a disabled marker): spend the same time as a failed verify.
    return this.verifyDummy(password);
  }

  /**
   * A legacy verification, through the gate, alongside a dummy argon2id one: its answer never
   * comes sooner than an argon2id account's would (a fast legacy hash, e.g. low-cost bcrypt, no
   * longer tells an imported account that never logged in from one that did). A legacy hash
   * slower than argon2id still takes its own time: the bounds above keep that gap small.
   */
  private async verifyLegacy(verify: () => Promise<boolean>, password: string): Promise<boolean> {
    const [verified] = await Promise.all([this.legacyGate.run(verify), this.verifyDummy(password)]);
    return verified;
  }

  needsRehash(stored: string): boolean {
    if (typeof stored !== 'string') return true;
    const parsed = stored.startsWith('$argon2id$') ? parseArgon2id(stored, this.storedBounds) : undefined;
    if (parsed === undefined) return true;
    return (
      parsed.version !== 19 ||
      parsed.memoryKiB < this.params.memoryKiB ||
      parsed.timeCost < this.params.timeCost ||
      parsed.parallelism < this.params.parallelism
    );
  }

  isSupportedHash(stored: string): boolean {
    if (typeof stored !== 'string') return false;
    return (
      parseArgon2id(stored, this.storedBounds) !== undefined ||
      isDjangoPbkdf2Hash(stored) ||
      isBcryptHash(stored)
    );
  }

  async verifyDummy(password: string): Promise<false> {
    try {
      const dummy = await this.getDummyHash();
      await argon2Verify(dummy, typeof password === 'string' ? password : '');
    } catch {
      // Nothing to report: the answer is false either way.
    }
    return false;
  }

  /**
   * Computes the dummy hash now rather than at the first unknown-user login (which would
   * otherwise cost one extra hash). Optional; call at start-up.
   */
  async warmUp(): Promise<void> {
    await this.getDummyHash();
  }

  private getDummyHash(): Promise<string> {
    if (this.dummyHash === undefined) {
      const pending = argon2Hash(randomBytes(32).toString('base64url'), this.options());
      // A failure is not remembered: the next call tries again.
      pending.catch(() => {
        if (this.dummyHash === pending) this.dummyHash = undefined;
      });
      this.dummyHash = pending;
    }
    return this.dummyHash;
  }

  private options() {
    return {
      algorithm: ARGON2ID,
      version: V0x13,
      memoryCost: this.params.memoryKiB,
      timeCost: this.params.timeCost,
      parallelism: this.params.parallelism,
    };
  }
}
