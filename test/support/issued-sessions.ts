/**
 * Sessions made the way the service makes them, for tests of what a session may do (contract 3b):
 * through the container's SessionIssuer, in one SessionEnding unit, as PasswordLogin issues its
 * own. No MFA route is needed to get a pending session, a two-factor one or an old one.
 */
import type { Container } from 'inversify';
import { TOKENS } from '../../src/boot/tokens.js';
import type { SessionAuth } from '../../src/domain/session/session-auth.js';
import type { User } from '../../src/domain/user/user.js';

export interface IssuedSession {
  /** The cookie value. */
  token: string;
  /** `name=value`, ready for a Cookie header. */
  cookie: string;
}

/**
 * Issues a session of `user` with the given facts: `{ stage: 'second_factor', amr: ['pwd'] }` is a
 * password login waiting for its second factor, `{ stage: 'full', amr: ['pwd', 'otp'] }` one that
 * gave it, `authTime` an authentication made earlier (default: now, on the service's clock).
 */
export async function issueSession(
  container: Container,
  user: User,
  auth: Omit<SessionAuth, 'authTime'> & { authTime?: Date },
  options: { method?: 'password' | 'sso'; cookieName?: string } = {},
): Promise<IssuedSession> {
  const issuer = container.get(TOKENS.SessionIssuer);
  const ending = container.get(TOKENS.SessionEnding);
  const result = await ending.unit((_repositories, end) =>
    issuer.issue(end, {
      user,
      method: options.method ?? 'password',
      presentedTokens: [],
      client: { clientAddress: '127.0.0.1', userAgent: 'issued-sessions' },
      auth,
    }),
  );
  return { token: result.token, cookie: `${options.cookieName ?? 'sessionid'}=${result.token}` };
}

/** A password login waiting for its second factor (contract 3b). */
export function issuePendingSession(
  container: Container,
  user: User,
  stage: 'second_factor' | 'enrolment' = 'second_factor',
): Promise<IssuedSession> {
  return issueSession(container, user, { stage, amr: ['pwd'] });
}
