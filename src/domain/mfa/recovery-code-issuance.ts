import type { Random } from '../shared/random.port.js';
import type { RecoveryCodeHasher } from './recovery-code-hasher.port.js';
import { newRecoveryCodes, normaliseRecoveryCode } from './recovery-codes.js';

export interface IssuedRecoveryCodes {
  /** Shown to the user this once. */
  codes: string[];
  /** What is stored, in the order of `codes`. */
  hashes: string[];
}

/**
 * A fresh set of recovery codes and the hashes a store keeps of them. Each is hashed as it will be
 * when it is typed (normalised), so the code the user copies finds its hash.
 */
export async function issueRecoveryCodes(
  random: Random,
  hasher: RecoveryCodeHasher,
  userId: string,
): Promise<IssuedRecoveryCodes> {
  const codes = newRecoveryCodes(random);
  const hashes = await Promise.all(codes.map((code) => hasher.hash(userId, normalisedFresh(code))));
  return { codes, hashes };
}

/** A code just made always reads as one of ours; anything else is a broken generator. */
function normalisedFresh(code: string): string {
  const normalised = normaliseRecoveryCode(code);
  if (normalised === null) throw new Error('A fresh recovery code does not read as one.');
  return normalised;
}
