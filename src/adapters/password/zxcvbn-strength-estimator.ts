import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';
import type {
  PasswordStrength,
  PasswordStrengthEstimator,
} from '../../domain/password/password-strength.port.js';

/**
 * The part of a password estimated: zxcvbn's matching grows faster than linearly with length, and a
 * password whose first 100 characters are strong is strong.
 */
const ESTIMATED_PREFIX = 100;

/**
 * zxcvbn-ts (a maintained port of Dropbox's estimator) with its common-password, name and
 * English word lists, keyboard graphs, and the repeat, sequence and date matchers. Built once:
 * loading the dictionaries takes about 100 ms.
 */
export class ZxcvbnStrengthEstimator implements PasswordStrengthEstimator {
  private readonly zxcvbn = new ZxcvbnFactory({
    translations: english.translations,
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...english.dictionary },
  });

  estimate(password: string, contextWords: readonly string[]): PasswordStrength {
    const prefix = [...password].slice(0, ESTIMATED_PREFIX).join('');
    const result = this.zxcvbn.check(
      prefix,
      contextWords.filter((word) => word.length > 0).map((w) => w.toLowerCase()),
    );
    return { score: result.score, warning: result.feedback.warning || null };
  }
}
