import { describe, expect, it } from 'vitest';
import {
  type CookieSettings,
  clearedSessionCookie,
  deviceCookie,
  deviceCookieName,
  MAX_COOKIE_VALUES,
  readCookies,
  sessionCookie,
} from '../../src/adapters/http/cookies.js';

const TOKEN = 'A'.repeat(40) + '_-9';

describe('readCookies', () => {
  it('finds nothing without a header or without the cookie', () => {
    expect(readCookies(undefined, 'sessionid')).toEqual([]);
    expect(readCookies('', 'sessionid')).toEqual([]);
    expect(readCookies('other=1; more=2', 'sessionid')).toEqual([]);
  });

  it('reads the cookie wherever it stands among 1000 cookies', () => {
    const others = Array.from({ length: 999 }, (_, i) => `c${i}=v${i}`);
    const first = ['sessionid=' + TOKEN, ...others].join('; ');
    const middle = [...others.slice(0, 500), `sessionid=${TOKEN}`, ...others.slice(500)].join('; ');
    const last = [...others, `sessionid=${TOKEN}`].join('; ');
    expect(first.split(';').length).toBe(1000);
    expect(readCookies(first, 'sessionid')).toEqual([TOKEN]);
    expect(readCookies(middle, 'sessionid')).toEqual([TOKEN]);
    expect(readCookies(last, 'sessionid')).toEqual([TOKEN]);
    expect(readCookies(others.join('; '), 'sessionid')).toEqual([]);
    expect(readCookies(others.join('; '), 'c998')).toEqual(['v998']);
  });

  it('reads every value when the name repeats, in order, once each, at most MAX_COOKIE_VALUES', () => {
    expect(readCookies('sessionid=first; sessionid=second', 'sessionid')).toEqual(['first', 'second']);
    expect(readCookies('a=1; sessionid=first; b=2; sessionid=second; sessionid=first', 'sessionid')).toEqual([
      'first',
      'second',
    ]);
    const many = Array.from({ length: 50 }, (_, i) => `sessionid=v${i}`).join('; ');
    expect(readCookies(many, 'sessionid')).toHaveLength(MAX_COOKIE_VALUES);
  });

  it('unquotes a quoted value', () => {
    expect(readCookies(`a=1; sessionid="${TOKEN}"; b=2`, 'sessionid')).toEqual([TOKEN]);
    expect(readCookies('sessionid=""', 'sessionid')).toEqual(['']);
    // A lone quote is not a quoted value.
    expect(readCookies('sessionid="', 'sessionid')).toEqual(['"']);
    // Nor is a value with a quote at one end only.
    expect(readCookies(`sessionid="${TOKEN}`, 'sessionid')).toEqual([`"${TOKEN}`]);
    expect(readCookies(`sessionid=${TOKEN}"`, 'sessionid')).toEqual([`${TOKEN}"`]);
  });

  it('matches whole names only', () => {
    expect(readCookies('xsessionid=evil; sessionid2=evil', 'sessionid')).toEqual([]);
    expect(readCookies('xsessionid=evil; sessionid=good', 'sessionid')).toEqual(['good']);
    expect(readCookies('__Host-sessionid=host; sessionid=plain', '__Host-sessionid')).toEqual(['host']);
    expect(readCookies('__Host-sessionid=host; sessionid=plain', 'sessionid')).toEqual(['plain']);
  });

  it('tolerates missing and extra spaces around separators', () => {
    expect(readCookies('a=1;sessionid=tight', 'sessionid')).toEqual(['tight']);
    expect(readCookies('a=1;   sessionid=spaced  ;b=2', 'sessionid')).toEqual(['spaced']);
    expect(readCookies('a=1; sessionid=last;', 'sessionid')).toEqual(['last']);
  });

  it('keeps an empty value empty', () => {
    expect(readCookies('sessionid=; a=1', 'sessionid')).toEqual(['']);
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

describe('deviceCookie', () => {
  const defaults: CookieSettings = { name: 'sessionid', secure: true, sameSite: 'lax', domain: undefined };

  it('is the session cookie name with _device, on the login path only, Strict', () => {
    expect(deviceCookie(defaults, 'proof', 60)).toBe(
      'sessionid_device=proof; Path=/api/v1/login/; Max-Age=60; HttpOnly; Secure; SameSite=Strict',
    );
  });

  // `__Host-` requires Path=/ and no Domain: a browser drops a `__Host-` cookie on the login path.
  it('turns a __Host- name (in any case) into __Secure-, which allows the login path', () => {
    for (const name of ['__Host-sessionid', '__host-sessionid', '__HOST-sessionid']) {
      expect(deviceCookieName({ ...defaults, name })).toBe('__Secure-sessionid_device');
      expect(deviceCookie({ ...defaults, name }, 'proof', 60)).toBe(
        '__Secure-sessionid_device=proof; Path=/api/v1/login/; Max-Age=60; HttpOnly; Secure; SameSite=Strict',
      );
    }
  });

  it('keeps a __Secure- name, and always marks it Secure', () => {
    const settings = { ...defaults, name: '__Secure-gh', secure: false, domain: 'example.com' };
    expect(deviceCookie(settings, 'proof', 60)).toBe(
      '__Secure-gh_device=proof; Path=/api/v1/login/; Max-Age=60; Domain=example.com; HttpOnly; Secure; SameSite=Strict',
    );
  });
});
