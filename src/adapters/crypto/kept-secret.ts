import type { Random } from '../../domain/shared/random.port.js';
import type { ServiceSecrets } from '../../domain/shared/service-secrets.port.js';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';

/** TOKEN_ENCRYPTION_KEY as a secret at rest needs it: `current` seals, `opening` opens (every key). */
export interface SecretSealing {
  /** The current key alone. */
  current: TokenSealer;
  /** The current key and the previous ones (TOKEN_ENCRYPTION_KEYS_PREVIOUS). */
  opening: TokenSealer;
}

/** Thrown when the stored secret cannot be opened with the keys this instance has. */
export class ServiceSecretUnreadableError extends Error {
  constructor(readonly secretName: string) {
    super(
      `The stored ${secretName} is sealed with a TOKEN_ENCRYPTION_KEY this instance does not have: ` +
        'set TOKEN_ENCRYPTION_KEY to the key that sealed it (or list that key in TOKEN_ENCRYPTION_KEYS_PREVIOUS).',
    );
    this.name = 'ServiceSecretUnreadableError';
  }
}

/** What marks a stored value as sealed. A clear 32-byte key begins with it once in 2^136. */
const SEALED = 'gatehouse-sealed:';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The sealed text of a stored value, or null for a value kept in clear. */
function sealedText(stored: Uint8Array): string | null {
  const text = decoder.decode(stored);
  return text.startsWith(SEALED) ? text.slice(SEALED.length) : null;
}

/**
 * One secret the service makes for itself (the key that signs device proofs), shared by every
 * instance through ServiceSecrets and read once per process (again after a failure). With
 * TOKEN_ENCRYPTION_KEY set it is kept sealed (AES-256-GCM, bound to its name: a sealed value copied
 * under another name opens to nothing), so a copy of the database alone cannot forge what it signs
 * (ASVS 13.3.1, 11.3.2). The value itself never changes, so whatever it signed stays valid:
 * - a secret kept in clear (made before the variable was set) is sealed where it lies;
 * - one sealed under a previous key (TOKEN_ENCRYPTION_KEYS_PREVIOUS) is sealed again under the
 *   current one, so dropping the previous key later loses nothing;
 * - one that no key of this instance opens (a sealed secret read without TOKEN_ENCRYPTION_KEY, or
 *   under another key) is `ServiceSecretUnreadableError`, naming the variable. It is never replaced:
 *   instances configured differently would replace each other's, and every device proof with them.
 */
export class KeptSecret {
  private value: Promise<Uint8Array> | undefined;

  constructor(
    private readonly secrets: ServiceSecrets,
    private readonly secretName: string,
    private readonly made: { bytes: number; random: Random },
    private readonly sealing: SecretSealing | null,
  ) {}

  read(): Promise<Uint8Array> {
    this.value ??= this.obtain().catch((error: unknown) => {
      this.value = undefined; // a store that was down is asked again next time
      throw error;
    });
    return this.value;
  }

  private async obtain(): Promise<Uint8Array> {
    const candidate = this.made.random.bytes(this.made.bytes);
    if (!this.sealing) {
      const stored = await this.secrets.obtain(this.secretName, candidate);
      if (sealedText(stored) !== null) throw new ServiceSecretUnreadableError(this.secretName);
      return stored;
    }
    const stored = await this.secrets.obtain(this.secretName, this.seal(candidate));
    const sealed = sealedText(stored);
    if (sealed === null) {
      await this.secrets.replace(this.secretName, stored, this.seal(stored));
      return stored;
    }
    const opened = this.sealing.opening.open(sealed, this.binding());
    if (opened === null) throw new ServiceSecretUnreadableError(this.secretName);
    const secret = new Uint8Array(Buffer.from(opened, 'base64url'));
    if (this.sealing.current.open(sealed, this.binding()) === null) {
      await this.secrets.replace(this.secretName, stored, this.seal(secret));
    }
    return secret;
  }

  private seal(secret: Uint8Array): Uint8Array {
    const sealed = this.sealing!.current.seal(Buffer.from(secret).toString('base64url'), this.binding());
    return encoder.encode(`${SEALED}${sealed}`);
  }

  private binding(): string {
    return JSON.stringify(['gatehouse service secret', this.secretName]);
  }
}
