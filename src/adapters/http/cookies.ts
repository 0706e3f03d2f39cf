export interface CookieSettings {
  name: string;
  secure: boolean;
  sameSite: 'lax' | 'strict' | 'none';
  domain: string | undefined;
}

/**
 * Reads one cookie from a Cookie header without building a map of all of them (a request may
 * carry a thousand cookies). The first occurrence wins.
 */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  const prefix = `${name}=`;
  let start = 0;
  while (start < header.length) {
    while (header.charCodeAt(start) === 32) start++;
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    if (header.startsWith(prefix, start)) {
      let value = header.slice(start + prefix.length, end).trim();
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
      return value;
    }
    start = end + 1;
  }
  return null;
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
