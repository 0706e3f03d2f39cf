export interface CookieSettings {
  name: string;
  secure: boolean;
  sameSite: 'lax' | 'strict' | 'none';
  domain: string | undefined;
}

/** More values of one cookie than any browser sends for real: the rest are not looked at. */
export const MAX_COOKIE_VALUES = 8;

/**
 * Reads every value of one cookie from a Cookie header, in order, without building a map of all
 * cookies (a request may carry a thousand). A browser sends several when cookies of one name
 * were set for different domains or paths (`Domain=.example` from a sibling subdomain comes
 * first), so none of them may simply win: the session check picks the one live session. At most
 * MAX_COOKIE_VALUES distinct values.
 */
export function readCookies(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  const prefix = `${name}=`;
  let start = 0;
  while (start < header.length && values.length < MAX_COOKIE_VALUES) {
    while (header.charCodeAt(start) === 32) start++;
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    if (header.startsWith(prefix, start)) {
      let value = header.slice(start + prefix.length, end).trim();
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
      if (!values.includes(value)) values.push(value);
    }
    start = end + 1;
  }
  return values;
}

const SAME_SITE = { lax: 'Lax', strict: 'Strict', none: 'None' } as const;

function attributes(settings: CookieSettings, maxAgeS: number): string {
  const parts = ['Path=/', `Max-Age=${maxAgeS}`];
  if (maxAgeS === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (settings.domain) parts.push(`Domain=${settings.domain}`);
  parts.push('HttpOnly');
  // Written by hand: Koa refuses `secure` on plain http, yet browsers keep Secure cookies from localhost.
  if (settings.secure) parts.push('Secure');
  parts.push(`SameSite=${SAME_SITE[settings.sameSite]}`);
  return parts.join('; ');
}

export function sessionCookie(settings: CookieSettings, token: string, maxAgeS: number): string {
  return `${settings.name}=${token}; ${attributes(settings, maxAgeS)}`;
}

export function clearedSessionCookie(settings: CookieSettings): string {
  return `${settings.name}=; ${attributes(settings, 0)}`;
}

const HOST_PREFIX = /^__host-/i;
const SECURE_PREFIX = /^__secure-/i;

/**
 * The device proof's cookie: the session cookie's name with `_device`. A `__Host-` name cannot be
 * reused, since `__Host-` requires `Path=/` and the device cookie is scoped to the login path:
 * browsers would drop it (and compare prefixes case-insensitively). It becomes `__Secure-`, which
 * keeps what matters here (only a secure origin can set it) and allows the narrower path.
 */
export function deviceCookieName(settings: CookieSettings): string {
  const name = settings.name.replace(HOST_PREFIX, '__Secure-');
  return `${name}_device`;
}

/**
 * The device proof (`DeviceProofs`): sent only to the login endpoint (its `Path`), never readable
 * by scripts, Strict so no other site's form carries it. It outlives sessions and logouts: it
 * says the browser logged in as this user, not that it still is.
 */
export function deviceCookie(settings: CookieSettings, proof: string, maxAgeS: number): string {
  const name = deviceCookieName(settings);
  const parts = [`${name}=${proof}`, 'Path=/api/v1/login/', `Max-Age=${maxAgeS}`];
  if (settings.domain) parts.push(`Domain=${settings.domain}`);
  parts.push('HttpOnly');
  // A `__Secure-` name is dropped by browsers without the attribute.
  if (settings.secure || SECURE_PREFIX.test(name)) parts.push('Secure');
  parts.push('SameSite=Strict');
  return parts.join('; ');
}
