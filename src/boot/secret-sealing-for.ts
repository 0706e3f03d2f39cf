import { AesTokenSealer } from '../adapters/crypto/aes-token-sealer.js';
import type { SecretSealing } from '../adapters/crypto/kept-secret.js';
import type { Config } from './config/config.js';

/**
 * How the service's own secrets are sealed at rest: with TOKEN_ENCRYPTION_KEY (the previous keys
 * open only), or not at all without it. Never a per-process key: a secret sealed with one could
 * not be read by the next start, nor by another instance.
 */
export function secretSealingFor(config: Config): SecretSealing | null {
  if (!config.tokenEncryptionKey) return null;
  return {
    current: AesTokenSealer.fromBase64(config.tokenEncryptionKey),
    opening: AesTokenSealer.fromBase64(config.tokenEncryptionKey, config.tokenEncryptionKeysPrevious),
  };
}
