import type { Logger } from '../adapters/logging/logger.js';
import type { Config } from './config/config.js';

/**
 * Settings that work but are weaker than they could be, said once at start-up. `sessionid` is the
 * spec's cookie name and stays the default; over HTTPS a `__Host-` name cannot be set or shadowed
 * by a sibling subdomain (`Domain=.example`), which is how a planted cookie gets in front of the
 * real one (ASVS 3.3.1). Sessions kept in this process's memory are said to be so.
 */
export function warnAboutConfiguration(config: Config, logger: Logger): void {
  if (config.cookie.secure && !config.cookie.name.startsWith('__Host-')) {
    logger.warn(
      { event: 'cookie_name_without_host_prefix', cookie_name: config.cookie.name },
      'COOKIE_SECURE is on but COOKIE_NAME lacks the __Host- prefix: a sibling subdomain can plant a ' +
        'cookie of the same name. Set COOKIE_NAME=__Host-sessionid in production (docs/operations.md).',
    );
  }
  if (config.sessionStore.kind === 'memory') {
    // Said at every start: nothing in this process's memory survives a restart or reaches another
    // instance, so a revocation made elsewhere never applies here.
    logger.warn(
      { event: 'session_store_memory' },
      'SESSION_STORE=memory: sessions live in this process only; they are lost on restart and not ' +
        'shared between instances. Use sql or redis for anything but one development instance.',
    );
  }
}
