import { describe, expect, it } from 'vitest';
import {
  type CookieSettings,
  clearedSessionCookie,
  readCookie,
  sessionCookie,
} from '../../src/adapters/http/cookies.js';

const TOKEN = 'A'.repeat(40) + '_-9';

describe('readCookie', () => {
  it('finds nothing without a header or without the cookie', () => {
    expect(readCookie(undefined, 'sessionid')).toBeNull();
    expect(readCookie('', 'sessionid')).toBeNull();
    expect(readCookie('other=1; more=2', 'sessionid')).toBeNull();
  });

  it('reads the cookie wherever it stands among 1000 cookies', () => {
    const others = Array.from({ length: 999 }, (_, i) => `c${i}=v${i}`);
    const first = ['sessionid=' + TOKEN, ...others].join('; ');
    const middle = [...others.slice(0, 500), `sessionid=${TOKEN}`, ...others.slice(500)].join('; ');
    const last = [...others, `sessionid=${TOKEN}`].join('; ');
    expect(first.split(';').length).toBe(1000);
    expect(readCookie(first, 'sessionid')).toBe(TOKEN);
    expect(readCookie(middle, 'sessionid')).toBe(TOKEN);
    expect(readCookie(last, 'sessionid')).toBe(TOKEN);
    expect(readCookie(others.join('; '), 'sessionid')).toBeNull();
    expect(readCookie(others.join('; '), 'c998')).toBe('v998');
  });

  it('takes the first occurrence when the name repeats', () => {
    expect(readCookie('sessionid=first; sessionid=second', 'sessionid')).toBe('first');
    expect(readCookie('a=1; sessionid=first; b=2; sessionid=second', 'sessionid')).toBe('first');
  });

  it('unquotes a quoted value', () => {
    expect(readCookie(`a=1; sessionid="${TOKEN}"; b=2`, 'sessionid')).toBe(TOKEN);
    expect(readCookie('sessionid=""', 'sessionid')).toBe('');
    // A lone quote is not a quoted value.
    expect(readCookie('sessionid="', 'sessionid')).toBe('"');
  });

  it('matches whole names only', () => {
    expect(readCookie('xsessionid=evil; sessionid2=evil', 'sessionid')).toBeNull();
    expect(readCookie('xsessionid=evil; sessionid=good', 'sessionid')).toBe('good');
    expect(readCookie('__Host-sessionid=host; sessionid=plain', '__Host-sessionid')).toBe('host');
    expect(readCookie('__Host-sessionid=host; sessionid=plain', 'sessionid')).toBe('plain');
  });

  it('tolerates missing and extra spaces around separators', () => {
    expect(readCookie('a=1;sessionid=tight', 'sessionid')).toBe('tight');
    expect(readCookie('a=1;   sessionid=spaced  ;b=2', 'sessionid')).toBe('spaced');
    expect(readCookie('a=1; sessionid=last;', 'sessionid')).toBe('last');
  });

  it('keeps an empty value empty', () => {
    expect(readCookie('sessionid=; a=1', 'sessionid')).toBe('');
  });
});

describe('sessionCookie and clearedSessionCookie', () => {
  const defaults: CookieSettings = { name: 'sessionid', secure: true, sameSite: 'lax', domain: undefined };

  it('writes the default attributes in a fixed order', () => {
    expect(sessionCookie(defaults, TOKEN, 43_200)).toBe(
      `sessionid=${TOKEN}; Path=/; Max-Age=43200; HttpOnly; Secure; SameSite=Lax`,
    );
  });

  it('honours name, domain, SameSite and Secure', () => {
    expect(
      sessionCookie({ name: 'gh', secure: false, sameSite: 'strict', domain: 'example.com' }, TOKEN, 60),
    ).toBe(`gh=${TOKEN}; Path=/; Max-Age=60; Domain=example.com; HttpOnly; SameSite=Strict`);
    expect(sessionCookie({ ...defaults, sameSite: 'none' }, TOKEN, 60)).toBe(
      `sessionid=${TOKEN}; Path=/; Max-Age=60; HttpOnly; Secure; SameSite=None`,
    );
  });

  it('clears with an empty value, Max-Age=0 and a past Expires, same attributes', () => {
    expect(clearedSessionCookie(defaults)).toBe(
      'sessionid=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax',
    );
    expect(clearedSessionCookie({ ...defaults, domain: 'example.com' })).toContain('Domain=example.com');
  });
});
