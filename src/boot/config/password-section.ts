import { z } from 'zod';
import { int } from './variables.js';

/** Passwords: their rules, their hashing, and the throttling of guesses. */
export const passwordVariables = z.object({
  PASSWORD_MAX_AGE_DAYS: int(0, 36_500).default(0),
  PASSWORD_MIN_LENGTH: int(8, 1024).default(12),
  PASSWORD_MIN_SCORE: int(0, 4).default(3),
  ARGON2_MEMORY_KIB: int(19_456, 4_194_304).default(19_456),
  ARGON2_TIME_COST: int(2, 100).default(2),
  ARGON2_PARALLELISM: int(1, 16).default(1),
  LOGIN_MAX_FAILURES: int(1, 1000).default(5),
  LOGIN_FAILURE_WINDOW_S: int(1, 86_400).default(900),
});

export interface PasswordConfig {
  password: {
    maxAgeDays: number;
    minLength: number;
    /** Lowest zxcvbn score (0-4) a new password may have; 0 turns the strength check off. */
    minScore: number;
    maxLength: number;
    argon2: { memoryKiB: number; timeCost: number; parallelism: number };
  };
  throttle: { maxFailures: number; windowS: number };
}

export function passwordSection(env: z.infer<typeof passwordVariables>) {
  return {
    problems: [] as string[],
    build: (): PasswordConfig => ({
      password: {
        maxAgeDays: env.PASSWORD_MAX_AGE_DAYS,
        minLength: env.PASSWORD_MIN_LENGTH,
        minScore: env.PASSWORD_MIN_SCORE,
        maxLength: 1024,
        argon2: {
          memoryKiB: env.ARGON2_MEMORY_KIB,
          timeCost: env.ARGON2_TIME_COST,
          parallelism: env.ARGON2_PARALLELISM,
        },
      },
      throttle: { maxFailures: env.LOGIN_MAX_FAILURES, windowS: env.LOGIN_FAILURE_WINDOW_S },
    }),
  };
}
