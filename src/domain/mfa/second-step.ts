import type { UserLevel } from '../user/user.js';
import { type MfaMethod, mfaMethodsOf, type UserFactors } from './mfa-factor.js';

/** What a right password leads to when it is not a login yet (contract 3b). */
export interface SecondStep {
  /** `second_factor`: prove one of `methods`; `enrolment`: a required user without a factor enrols one. */
  stage: 'second_factor' | 'enrolment';
  /** The methods that finish the login; empty for an enrolment. */
  methods: MfaMethod[];
}

/**
 * The second step a password login of this user needs, or null when the password alone logs in
 * (no factor, and the user's level does not require one). A user with a factor always proves it,
 * whatever the policy: a factor the user added is never skipped.
 */
export function secondStepOf(
  userLevel: UserLevel,
  factors: UserFactors,
  requiredLevels: readonly UserLevel[],
): SecondStep | null {
  const methods = mfaMethodsOf(factors);
  if (methods.length > 0) return { stage: 'second_factor', methods };
  if (requiredLevels.includes(userLevel)) return { stage: 'enrolment', methods: [] };
  return null;
}
