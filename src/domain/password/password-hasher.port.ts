/**
 * Hashes new passwords and verifies stored hashes of any supported format.
 * Implementations must not block the event loop for the duration of a hash.
 */
export interface PasswordHasher {
  /** A PHC string of the current algorithm and parameters (argon2id). */
  hash(password: string): Promise<string>;
  /** True when `password` matches `stored` (argon2id PHC, Django pbkdf2_sha256, bcrypt $2a$/$2b$/$2y$). */
  verify(stored: string, password: string): Promise<boolean>;
  /** True when `stored` uses another algorithm or weaker parameters than `hash` would produce. */
  needsRehash(stored: string): boolean;
  /** True when `stored` is a format this hasher can verify (used to validate imports). */
  isSupportedHash(stored: string): boolean;
  /**
   * Does the same work as a failed `verify` against a real hash, so an unknown user costs
   * the same time as a wrong password (no user enumeration by timing).
   */
  verifyDummy(password: string): Promise<false>;
}
