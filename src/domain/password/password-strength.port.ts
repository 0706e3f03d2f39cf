/** How hard a password is to guess, on zxcvbn's scale: 0 (trivial) to 4 (over 10^10 guesses). */
export interface PasswordStrength {
  score: 0 | 1 | 2 | 3 | 4;
  /** Why it is weak, in a sentence for the user (e.g. repeated or sequential characters). */
  warning: string | null;
}

/**
 * Estimates a password's strength against common passwords, names and words, keyboard patterns,
 * repetitions, sequences and dates, and the context words given (the username, the service's name).
 */
export interface PasswordStrengthEstimator {
  estimate(password: string, contextWords: readonly string[]): PasswordStrength;
}
