import { describe, expect, it } from 'vitest';
import {
  canonicalUsername,
  escapeForDisplay,
  ssoUsername,
  usernameViolation,
} from '../../src/domain/user/username.js';

describe('canonicalUsername (issue 11, finding 2)', () => {
  it.each([
    ['Straße', 'STRASSE'],
    ['straße', 'strasse'],
    ['ＡＤＭＩＮ', 'admin'],
    ['ﬁnn', 'FINN'],
    ['ΣΊΣΥΦΟΣ', 'σίσυφος'],
    ['Ὀδυσσεύς', 'ὀδυσσεύς'],
    ['é', 'e\u0301'],
    ['Å', 'Å'],
    ['K', 'k'],
    ['ᏣᎳᎩ', 'ꮳꮃꭹ'],
  ])('makes %j and %j one account', (a, b) => {
    expect(canonicalUsername(a)).toBe(canonicalUsername(b));
  });

  it('keeps what is really different apart', () => {
    expect(canonicalUsername('ann')).not.toBe(canonicalUsername('anne'));
    expect(canonicalUsername('adm\u200bin')).not.toBe(canonicalUsername('admin'));
    expect(canonicalUsername('admin')).toBe('admin');
  });

  it('differs from what JavaScript and SQL lower-casing do for the letters that fooled them', () => {
    // toLowerCase (and PostgreSQL's lower() in most locales) leaves these two apart.
    expect('Straße'.toLowerCase()).not.toBe('STRASSE'.toLowerCase());
    expect('ＡＤＭＩＮ'.toLowerCase()).not.toBe('admin');
  });

  it('is stable: the canonical form of a canonical form is itself', () => {
    for (const name of ['Straße', 'ＡＤＭＩＮ', 'ΣΊΣΥΦΟΣ', 'İstanbul', 'ﬃ', 'Ǆemal']) {
      const once = canonicalUsername(name);
      expect(canonicalUsername(once)).toBe(once);
    }
  });
});

describe('usernameViolation (issue 14, finding 4)', () => {
  it.each(['ann', 'Ann Lee', 'straße', 'renée', 'ann.lee@example.com', '李小龍'])('accepts %j', (name) => {
    expect(usernameViolation('username', name)).toBeNull();
  });

  it.each([
    ['adm\u200bin', 'control, format or invisible'],
    ['\u202enimda', 'control, format or invisible'],
    ['ann\u2060', 'control, format or invisible'],
    ['ann\u00ad', 'control, format or invisible'],
    ['\u3164', 'control, format or invisible'],
    ['ann\u034f', 'control, format or invisible'],
    ['ann\ue000', 'control, format or invisible'],
    ['ann\u0000', 'control, format or invisible'],
    ['ann\u2028lee', 'control, format or invisible'],
    ['ann\u00a0lee', 'white space other than spaces'],
    ['ann\u3000', 'white space other than spaces'],
    [' ann', 'start or end with white space'],
    ['', 'must not be empty'],
    ['x'.repeat(201), 'at most 200'],
  ])('refuses %j', (name, message) => {
    expect(usernameViolation('username', name)?.message).toContain(message);
  });
});

describe('ssoUsername (issue 14, finding 3)', () => {
  it('trims ASCII spaces at the ends only', () => {
    expect(ssoUsername('  carol ')).toBe('carol');
    expect(ssoUsername('\u00a0carol\u3000')).toBeNull();
    expect(ssoUsername('\ufeffcarol')).toBeNull();
    expect(ssoUsername('carol\u2028')).toBeNull();
    expect(ssoUsername('car\tol')).toBeNull();
    expect(ssoUsername('car ol')).toBeNull();
    expect(ssoUsername('   ')).toBeNull();
  });
});

describe('escapeForDisplay (issue 14, finding 4)', () => {
  it('shows every hidden or reordering code point, and the backslash that would fake one', () => {
    expect(escapeForDisplay('adm\u200bin')).toBe('adm\\u{200B}in');
    expect(escapeForDisplay('\u202enimda')).toBe('\\u{202E}nimda');
    expect(escapeForDisplay('ann\u00a0lee')).toBe('ann\\u{A0}lee');
    expect(escapeForDisplay('a\\u{200B}')).toBe('a\\\\u{200B}');
    expect(escapeForDisplay('Ann Lee, straße, 李')).toBe('Ann Lee, straße, 李');
  });
});
