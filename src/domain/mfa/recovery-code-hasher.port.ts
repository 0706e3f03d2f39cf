/**
 * Turns a recovery code into what is stored (contract 3b: stored hashed). The same code of the
 * same user always gives the same hash, so a store finds the code by its hash in one step.
 */
export interface RecoveryCodeHasher {
  /** `code` as `normaliseRecoveryCode` returned it. */
  hash(userId: string, code: string): Promise<string>;
}
