import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEVICE_PROOF_LIFETIME_S, HmacDeviceProofs } from '../../src/adapters/crypto/hmac-device-proofs.js';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';

const NOW = new Date('2026-11-25T08:00:00Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

/** Device proofs over a key held in memory (the service reads it from the store: KeptSecret). */
function proofs(key = randomBytes(32)) {
  const devices = new HmacDeviceProofs(async () => key, nodeRandom);
  return { devices };
}

describe('HmacDeviceProofs', () => {
  it('recognises its own proof for the username it was issued for, until it expires', async () => {
    const { devices } = proofs();
    const { proof, lifetimeS } = await devices.issue('ann', NOW);
    expect(lifetimeS).toBe(DEVICE_PROOF_LIFETIME_S);
    const device = await devices.recognise(proof, 'ann', later(60));
    expect(device).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await devices.recognise(proof, 'ann', later(DEVICE_PROOF_LIFETIME_S - 1))).toBe(device);
    expect(await devices.recognise(proof, 'ann', later(DEVICE_PROOF_LIFETIME_S))).toBeNull();
  });

  it('names a new device with each proof', async () => {
    const { devices } = proofs();
    const first = await devices.recognise((await devices.issue('ann', NOW)).proof, 'ann', NOW);
    const second = await devices.recognise((await devices.issue('ann', NOW)).proof, 'ann', NOW);
    expect(first).not.toBe(second);
  });

  it('refuses another user’s proof, an altered one, another key’s, and junk, without throwing', async () => {
    const { devices } = proofs();
    const { proof } = await devices.issue('ann', NOW);
    const [nonce, expiry, mac] = proof.split('.') as [string, string, string];
    const flipped = `${mac.slice(0, 10)}${mac[10] === 'A' ? 'B' : 'A'}${mac.slice(11)}`;
    const candidates = [
      `${nonce}.${Number(expiry) + 86_400}.${mac}`, // lifetime stretched
      `${nonce.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}.${expiry}.${mac}`, // another device
      `${nonce}.${expiry}.${flipped}`,
      (await proofs().devices.issue('ann', NOW)).proof, // another service's key
      '',
      'not-a-proof',
      `${proof}.extra`,
      'x'.repeat(10_000),
    ];
    expect(await devices.recognise(proof, 'bob', NOW)).toBeNull();
    expect(await devices.recognise(proof, 'Ann', NOW)).toBeNull();
    for (const candidate of candidates) expect(await devices.recognise(candidate, 'ann', NOW)).toBeNull();
  });
});
