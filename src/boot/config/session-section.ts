import { z } from 'zod';
import { bool, int } from './variables.js';

/** Sessions, their cookie, and what a session check tells. */
export const sessionVariables = z.object({
  PROVIDE_BACKEND_INFO: bool.default(false),
  SESSION_IDLE_TIMEOUT_S: int(60, 31_536_000).default(1800),
  SESSIONS_PER_USER_MAX: int(1, 100_000).default(100),
  SESSION_ABSOLUTE_TIMEOUT_S: int(60, 31_536_000).default(43_200),
  COOKIE_NAME: z
    .string()
    .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'must be a cookie token')
    .default('sessionid'),
  COOKIE_SECURE: bool.default(true),
  COOKIE_SAMESITE: z.enum(['lax', 'strict', 'none']).default('lax'),
  COOKIE_DOMAIN: z.string().min(1).optional(),
});

export interface SessionConfig {
  provideBackendInfo: boolean;
  session: { idleTimeoutS: number; absoluteTimeoutS: number; perUserMax: number };
  cookie: { name: string; secure: boolean; sameSite: 'lax' | 'strict' | 'none'; domain: string | undefined };
}

export function sessionSection(env: z.infer<typeof sessionVariables>) {
  const problems: string[] = [];
  if (env.SESSION_IDLE_TIMEOUT_S > env.SESSION_ABSOLUTE_TIMEOUT_S) {
    problems.push('SESSION_IDLE_TIMEOUT_S: must not exceed SESSION_ABSOLUTE_TIMEOUT_S');
  }
  if (env.COOKIE_NAME.startsWith('__Host-') && (env.COOKIE_DOMAIN || !env.COOKIE_SECURE)) {
    problems.push('COOKIE_NAME: a __Host- cookie needs COOKIE_SECURE=true and no COOKIE_DOMAIN');
  }
  if (env.COOKIE_NAME.startsWith('__Secure-') && !env.COOKIE_SECURE) {
    problems.push('COOKIE_NAME: a __Secure- cookie needs COOKIE_SECURE=true');
  }
  if (env.COOKIE_SAMESITE === 'none' && !env.COOKIE_SECURE) {
    problems.push('COOKIE_SAMESITE: none requires COOKIE_SECURE=true');
  }
  return {
    problems,
    build: (): SessionConfig => ({
      provideBackendInfo: env.PROVIDE_BACKEND_INFO,
      session: {
        idleTimeoutS: env.SESSION_IDLE_TIMEOUT_S,
        absoluteTimeoutS: env.SESSION_ABSOLUTE_TIMEOUT_S,
        perUserMax: env.SESSIONS_PER_USER_MAX,
      },
      cookie: {
        name: env.COOKIE_NAME,
        secure: env.COOKIE_SECURE,
        sameSite: env.COOKIE_SAMESITE,
        domain: env.COOKIE_DOMAIN,
      },
    }),
  };
}
