import type { ProductGuardOptions } from '../adapters/http/session-guard.js';
import type { Gatehouse } from '../gatehouse.js';

export interface SessionGuardOptions {
  /** Spec 5.4: only a password-change-like route accepts a session whose password expired. */
  allowExpiredCredentials?: boolean;
  /** Origins besides the app's own whose unsafe requests are accepted; default TRUSTED_ORIGINS. */
  trustedOrigins?: readonly string[];
}

/** The guard settings of an embedded Gatehouse: its cookie name and trusted origins. */
export function guardSettings(gatehouse: Gatehouse, options: SessionGuardOptions): ProductGuardOptions {
  return {
    cookieName: gatehouse.config.cookie.name,
    trustedOrigins: options.trustedOrigins ?? gatehouse.config.trustedOrigins,
    allowExpiredCredentials: options.allowExpiredCredentials ?? false,
  };
}
