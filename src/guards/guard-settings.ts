import type { GuardSettings } from '../adapters/http/session-guard.js';
import type { Gatehouse } from '../boot/gatehouse.js';

/**
 * The options of every embedded guard (`gatehouse/koa`, `gatehouse/express`, `gatehouse/fastify`),
 * named as gatehouse-client's: the guards are mounted the same way, `gatehouse` in place of `url`.
 */
export interface GatehouseSessionOptions {
  /** The embedded service (`createGatehouse`): its sessions, cookie name and TRUSTED_ORIGINS. */
  gatehouse: Gatehouse;
  /** Origins besides the app's own whose unsafe requests are accepted; default TRUSTED_ORIGINS. */
  trustedOrigins?: readonly string[];
  /** Spec 5.4: only a password-change-like route accepts a session whose password expired. */
  allowExpiredCredentials?: boolean;
}

/** The guard settings of an embedded Gatehouse: its cookie name and trusted origins. */
export function guardSettings(options: GatehouseSessionOptions): GuardSettings {
  return {
    cookieName: options.gatehouse.config.cookie.name,
    trustedOrigins: options.trustedOrigins ?? options.gatehouse.config.trustedOrigins,
    allowExpiredCredentials: options.allowExpiredCredentials ?? false,
  };
}
