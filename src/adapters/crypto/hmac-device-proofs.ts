import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DeviceProofs, IssuedDeviceProof } from '../../domain/login/device-proofs.port.js';
import type { Random } from '../../domain/shared/random.port.js';

/** How long a device proof lasts: a browser that has not logged in for this long is a stranger. */
export const DEVICE_PROOF_LIFETIME_S = 180 * 86_400;

/** The signing key's length (HMAC-SHA-256: a key of the hash's size). */
export const DEVICE_PROOF_KEY_BYTES = 32;

const NONCE_BYTES = 16;
/** Longer than any proof this class issues: anything longer is not read. */
const MAX_PROOF_LENGTH = 128;
const PROOF = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Device proofs signed with HMAC-SHA-256 under a key every instance shares (`key` reads it from
 * the store, where the first instance made it: a `KeptSecret`): `nonce.expiry.mac`, the mac
 * covering a purpose label, the canonical username, the nonce and the expiry. Nothing is stored
 * per device: the nonce names the device, and its budget lives in the throttle store like any
 * other key.
 */
export class HmacDeviceProofs implements DeviceProofs {
  constructor(
    private readonly key: () => Promise<Uint8Array>,
    private readonly random: Random,
  ) {}

  async issue(usernameKey: string, now: Date): Promise<IssuedDeviceProof> {
    const nonce = Buffer.from(this.random.bytes(NONCE_BYTES)).toString('base64url');
    const expiresAtS = Math.floor(now.getTime() / 1000) + DEVICE_PROOF_LIFETIME_S;
    const mac = await this.mac(usernameKey, nonce, expiresAtS);
    return {
      proof: `${nonce}.${expiresAtS}.${mac.toString('base64url')}`,
      lifetimeS: DEVICE_PROOF_LIFETIME_S,
    };
  }

  async recognise(proof: string, usernameKey: string, now: Date): Promise<string | null> {
    if (proof.length > MAX_PROOF_LENGTH) return null;
    const parts = PROOF.exec(proof);
    if (!parts) return null;
    const [, nonce, expiry, mac] = parts as unknown as [string, string, string, string];
    const expiresAtS = Number(expiry);
    if (expiresAtS * 1000 <= now.getTime()) return null;
    const expected = await this.mac(usernameKey, nonce, expiresAtS);
    const presented = Buffer.from(mac, 'base64url');
    return presented.length === expected.length && timingSafeEqual(presented, expected) ? nonce : null;
  }

  private async mac(usernameKey: string, nonce: string, expiresAtS: number): Promise<Buffer> {
    // NUL separates the fields: a canonical username never holds one.
    return createHmac('sha256', await this.key())
      .update(`gatehouse device proof\0${usernameKey}\0${nonce}\0${expiresAtS}`)
      .digest();
  }
}
