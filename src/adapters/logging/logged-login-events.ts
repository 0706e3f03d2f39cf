import type { LoginEvents } from '../../application/login-events.js';
import type { Logger } from './logger.js';

/** Writes login events as structured log lines (OWASP: log session creation and destruction). */
export function loggedLoginEvents(logger: Logger): LoginEvents {
  return {
    loginSucceeded: (event) => logger.info({ event: 'login_succeeded', ...event }, 'login succeeded'),
    loginFailed: (event) => logger.info({ event: 'login_failed', ...event }, 'login failed'),
    sessionEnded: (event) => logger.info({ event: 'session_ended', ...event }, 'session ended'),
    passwordChanged: (event) => logger.info({ event: 'password_changed', ...event }, 'password changed'),
    mfaChecked: (event) => logger.info({ event: 'mfa_checked', ...event }, 'second factor checked'),
    sessionCookiesAmbiguous: (event) =>
      logger.warn(
        { event: 'session_cookies_ambiguous', ...event },
        'several live session cookies in one request: none used (a cookie set from another domain?)',
      ),
  };
}
