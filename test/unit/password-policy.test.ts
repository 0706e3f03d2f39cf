import { describe, expect, it } from 'vitest';
import { loadCommonPasswords, parseCommonPasswords } from '../../src/adapters/password/common-passwords.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { passwordPolicyFor } from '../../src/boot/password-policy-for.js';
import { type PasswordContext, PasswordPolicy } from '../../src/domain/password/password-policy.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';

const commonPasswords = loadCommonPasswords();
const policy = new PasswordPolicy({ minLength: 12, maxLength: 1024, commonPasswords });

function messages(password: string, context?: { username?: string }): string[] {
  return policy.violations(password, context).map((error) => error.message);
}

describe('loadCommonPasswords', () => {
  it('reads the bundled list next to the source module', () => {
    expect(commonPasswords.size).toBeGreaterThan(9000);
    expect(commonPasswords.has('password')).toBe(true);
    expect(commonPasswords.has('123456')).toBe(true);
    expect(commonPasswords.has('qwertyuiop')).toBe(true);
    for (const entry of commonPasswords) {
      expect(entry.startsWith('#')).toBe(false);
      expect(entry).toBe(entry.toLowerCase());
    }
  });

  it('shares one set between calls', () => {
    expect(loadCommonPasswords()).toBe(commonPasswords);
  });

  it('falls back to the source tree from the compiled module in dist/', () => {
    // Stands for dist/src/adapters/password/ in a folder with no copy of the .txt (tsc copies none).
    const compiled = new URL(
      '../../.no-such-dist/src/adapters/password/common-passwords.js',
      import.meta.url,
    );
    const fromDist = loadCommonPasswords(compiled);
    expect(fromDist.has('password')).toBe(true);
    expect(fromDist.has('123456')).toBe(true);
    expect(fromDist.size).toBe(commonPasswords.size);
  });

  it('names the places it looked when the list is missing', () => {
    expect(() => loadCommonPasswords('file:///nonexistent/a/b/c/d/module.js')).toThrow(
      /common passwords was not found.*nonexistent/,
    );
  });

  it('skips comment and blank lines and lower-cases entries', () => {
    const parsed = parseCommonPasswords('# header\r\nPassword\r\n\n# another\nletmein\n');
    expect([...parsed]).toEqual(['password', 'letmein']);
  });
});

describe('PasswordPolicy', () => {
  it('accepts a long, uncommon password', () => {
    expect(policy.violations('correct horse battery staple')).toEqual([]);
    expect(() => policy.assertAcceptable('correct horse battery staple')).not.toThrow();
  });

  it('requires at least 12 characters', () => {
    expect(messages('Xy7!kq2@Lm9')).toEqual(['must have at least 12 characters']);
    expect(messages('Xy7!kq2@Lm9#')).toEqual([]);
  });

  it('allows 1024 characters and refuses more', () => {
    expect(messages('ab'.repeat(512))).toEqual([]);
    expect(messages(`${'ab'.repeat(512)}c`)).toEqual(['must have at most 1024 characters']);
  });

  it('counts code points, so 12 emoji pass and 11 do not', () => {
    const emoji = '🔐🦄🎉🚀🌈🍕🎸🐙🌵🧩🛸🎲';
    expect(emoji.length).toBe(24); // UTF-16 units
    expect(messages(emoji)).toEqual([]);
    expect(messages([...emoji].slice(0, 11).join(''))).toEqual(['must have at least 12 characters']);
    // 1024 emoji are 2048 UTF-16 units, still within the maximum.
    expect(messages('🔐'.repeat(1024))).toEqual([]);
  });

  it('applies no composition rules', () => {
    expect(messages('aaaaaaaaaaaaaaaaaaaabbbbbbbbbb')).toEqual([]);
    expect(messages('only lower case words here')).toEqual([]);
  });

  it('refuses a common password, case-insensitively', () => {
    const common = [...commonPasswords].find((entry) => [...entry].length >= 12);
    expect(common).toBeDefined();
    expect(messages(common!)).toEqual(['is too common']);
    expect(messages(common!.toUpperCase())).toEqual(['is too common']);
    expect(messages('PassWord')).toEqual(['must have at least 12 characters', 'is too common']);
  });

  it('refuses the username, case-insensitively', () => {
    expect(messages('Alice.Wonderland', { username: 'alice.wonderland' })).toEqual([
      'must not be the username',
    ]);
    expect(messages('alice.wonderland!', { username: 'alice.wonderland' })).toEqual([]);
    expect(messages('alice.wonderland', {})).toEqual([]);
  });

  it('reports every failed rule on new_password and throws PASSWORD_POLICY', () => {
    const errors = policy.violations('qwerty', { username: 'QWERTY' });
    expect(errors).toEqual([
      { path: 'new_password', message: 'must have at least 12 characters' },
      { path: 'new_password', message: 'is too common' },
      { path: 'new_password', message: 'must not be the username' },
    ]);
    let thrown: unknown;
    try {
      policy.assertAcceptable('qwerty', { username: 'QWERTY' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).code).toBe('PASSWORD_POLICY');
    expect((thrown as DomainError).errors).toEqual(errors);
  });
});

describe('PasswordPolicy with the strength estimator (issue 11, finding 9)', () => {
  const strict = passwordPolicyFor(loadConfig({}));
  const refusal = (password: string, context?: PasswordContext) =>
    strict.violations(password, context).map((error) => error.message);

  it('refuses passwords of the allowed length that are trivially guessable, saying why', () => {
    expect(refusal('aaaaaaaaaaaa')).toEqual([
      'is too easy to guess: Repeated characters like "aaa" are easy to guess. Add more words that are less common.',
    ]);
    expect(refusal('abcabcabcabc')[0]).toMatch(/^is too easy to guess: Repeated character patterns/);
    expect(refusal('abcdefghijklmn')[0]).toMatch(/^is too easy to guess: Common character sequences/);
    expect(refusal('123456789012')[0]).toMatch(/^is too easy to guess/);
    expect(refusal('qwertyuiopasdf')[0]).toMatch(/^is too easy to guess/);
    expect(refusal('iloveyou12345')[0]).toMatch(/^is too easy to guess/);
  });

  it('refuses a password built on the username, the user’s names or the service’s name', () => {
    expect(refusal('gatehouse2024!')[0]).toMatch(/^is too easy to guess/);
    expect(refusal('margarethe1984!')).toEqual([]);
    expect(refusal('margarethe1984!', { username: 'margarethe' })[0]).toMatch(/^is too easy to guess/);
    expect(refusal('Quintanilla#1999', { username: 'x', otherWords: ['Rosa', 'Quintanilla'] })[0]).toMatch(
      /^is too easy to guess/,
    );
  });

  it('accepts passphrases, and is off with PASSWORD_MIN_SCORE=0', () => {
    for (const good of ['correct horse battery staple', 'a brand new passphrase', 'Tr0ub4dor&3xyz']) {
      expect(refusal(good)).toEqual([]);
    }
    expect(passwordPolicyFor(loadConfig({ PASSWORD_MIN_SCORE: '0' })).violations('aaaaaaaaaaaa')).toEqual([]);
  });
});
