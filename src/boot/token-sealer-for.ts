import { AesTokenSealer } from '../adapters/crypto/aes-token-sealer.js';
import type { TokenSealer } from '../domain/sso/token-sealer.port.js';
import type { Config } from './config/config.js';

/**
 * The sealer of provider tokens kept with sessions and of registered providers' secrets:
 * TOKEN_ENCRYPTION_KEY (with the keys before a rotation, to open only). Without the key, a
 * per-process one: nothing sealed outlives the process, and registering a provider is refused.
 */
export function tokenSealerFor(config: Config): TokenSealer {
  return config.tokenEncryptionKey
    ? AesTokenSealer.fromBase64(config.tokenEncryptionKey, config.tokenEncryptionKeysPrevious)
    : AesTokenSealer.random();
}
