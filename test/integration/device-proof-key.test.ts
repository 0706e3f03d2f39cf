/**
 * The key that signs device proofs, at rest: with TOKEN_ENCRYPTION_KEY set the database holds it
 * sealed (AES-256-GCM, bound to its name), never the key; a key kept in clear before the variable
 * was set is sealed where it lies at the next start, and the device proofs it signed stay valid;
 * one sealed under a previous key is sealed again under the current one; one this instance cannot
 * open stops the start-up, naming the variable, and is left as it was. Real PGlite and the real
 * service start (createGatehouse), the proofs checked by the service's own DeviceProofs.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { HmacDeviceProofs } from '../../src/adapters/crypto/hmac-device-proofs.js';
import { KeptSecret, type SecretSealing } from '../../src/adapters/crypto/kept-secret.js';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlServiceSecrets } from '../../src/adapters/sql/sql-service-secrets.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver } from '../../src/boot/gatehouse.js';
import { TOKENS } from '../../src/boot/tokens.js';
import type { ServiceSecrets } from '../../src/domain/shared/service-secrets.port.js';
import { openTestPglite } from '../support/databases.js';
import { TEST_ENV } from '../support/test-server.js';

const NAME = 'device_proof_key';
const BINDING = JSON.stringify(['gatehouse service secret', NAME]);
const NOW = new Date();
const newKey = () => randomBytes(32).toString('base64');

async function storedKey(sql: SqlClient): Promise<Buffer> {
  const { rows } = await sql.query<{ secret: Uint8Array }>(
    'SELECT secret FROM service_secrets WHERE name = $1',
    [NAME],
  );
  return Buffer.from(rows[0]!.secret);
}

/** The signing key the stored value holds, opened with `key` alone (null: it does not open). */
function openedWith(stored: Buffer, key: string): Buffer | null {
  const text = stored.toString('utf8');
  if (!text.startsWith('gatehouse-sealed:')) return null;
  const opened = AesTokenSealer.fromBase64(key).open(text.slice('gatehouse-sealed:'.length), BINDING);
  return opened === null ? null : Buffer.from(opened, 'base64url');
}

/** A proof made the way an instance with this signing key makes it. */
const proofSignedWith = (signingKey: Uint8Array) =>
  new HmacDeviceProofs(async () => signingKey, nodeRandom).issue('ann', NOW);

function sealing(key: string, previous: string[] = []): SecretSealing {
  return { current: AesTokenSealer.fromBase64(key), opening: AesTokenSealer.fromBase64(key, previous) };
}

/** An instance's start-up over this database, as the service starts (the key read before serving). */
function start(sql: SqlClient, env: Record<string, string> = {}) {
  return createGatehouseOver(sql, { config: loadConfig({ ...TEST_ENV, LOG_LEVEL: 'silent', ...env }) });
}

/** A database whose device-proof key an earlier version (or instance) stored as `kept` made it. */
async function databaseWith(kept: SecretSealing | null): Promise<{ sql: SqlClient; signingKey: Uint8Array }> {
  const sql = await openTestPglite();
  const signingKey = await new KeptSecret(
    new SqlServiceSecrets(sql),
    NAME,
    { bytes: 32, random: nodeRandom },
    kept,
  ).read();
  return { sql, signingKey };
}

describe('the device-proof key at rest', () => {
  it('is stored sealed with TOKEN_ENCRYPTION_KEY, never as the key, and signs what the service issues', async () => {
    const key = newKey();
    const sql = await openTestPglite();
    const gatehouse = await start(sql, { TOKEN_ENCRYPTION_KEY: key });
    try {
      const { proof } = await gatehouse.container.get(TOKENS.DeviceProofs).issue('ann', NOW);
      const stored = await storedKey(sql);
      const signingKey = openedWith(stored, key);
      expect(signingKey).toHaveLength(32);
      // Neither the key's bytes nor any spelling of them in clear.
      expect(stored.includes(signingKey!)).toBe(false);
      expect(stored.toString('utf8')).not.toContain(signingKey!.toString('base64url'));
      expect(stored.toString('utf8')).not.toContain(signingKey!.toString('base64'));
      expect(stored.toString('utf8')).not.toContain(signingKey!.toString('hex'));
      // The stored key is the one that signs: a proof made with it is the service's own.
      expect(
        await new HmacDeviceProofs(async () => signingKey!, nodeRandom).recognise(proof, 'ann', NOW),
      ).not.toBeNull();
    } finally {
      await gatehouse.close();
    }
  });

  it('is kept in clear without TOKEN_ENCRYPTION_KEY (nothing to seal it with), as before', async () => {
    const sql = await openTestPglite();
    const gatehouse = await start(sql);
    try {
      const { proof } = await gatehouse.container.get(TOKENS.DeviceProofs).issue('ann', NOW);
      const stored = await storedKey(sql);
      expect(stored).toHaveLength(32);
      expect(
        await new HmacDeviceProofs(async () => stored, nodeRandom).recognise(proof, 'ann', NOW),
      ).not.toBeNull();
    } finally {
      await gatehouse.close();
    }
  });

  it('kept in clear before TOKEN_ENCRYPTION_KEY was set: sealed where it lies at the next start, its proofs still valid', async () => {
    const { sql, signingKey } = await databaseWith(null);
    const { proof } = await proofSignedWith(signingKey);
    expect(await storedKey(sql)).toEqual(Buffer.from(signingKey));
    const key = newKey();
    const gatehouse = await start(sql, { TOKEN_ENCRYPTION_KEY: key });
    try {
      // Sealed by the start-up itself, before any request.
      expect(openedWith(await storedKey(sql), key)).toEqual(Buffer.from(signingKey));
      // The browser's device cookie from before the upgrade is still this service's proof.
      const devices = gatehouse.container.get(TOKENS.DeviceProofs);
      expect(await devices.recognise(proof, 'ann', NOW)).not.toBeNull();
    } finally {
      await gatehouse.close();
    }
  });

  it('sealed under a previous key: sealed again under the current one at start, its proofs still valid', async () => {
    const [oldKey, key] = [newKey(), newKey()];
    const { sql, signingKey } = await databaseWith(sealing(oldKey));
    const { proof } = await proofSignedWith(signingKey);
    const gatehouse = await start(sql, { TOKEN_ENCRYPTION_KEY: key, TOKEN_ENCRYPTION_KEYS_PREVIOUS: oldKey });
    try {
      // The current key alone opens it now: dropping the previous key later loses nothing.
      expect(openedWith(await storedKey(sql), key)).toEqual(Buffer.from(signingKey));
      expect(await gatehouse.container.get(TOKENS.DeviceProofs).recognise(proof, 'ann', NOW)).not.toBeNull();
    } finally {
      await gatehouse.close();
    }
  });

  it.each([
    ['without TOKEN_ENCRYPTION_KEY', () => ({})],
    ['under another TOKEN_ENCRYPTION_KEY', () => ({ TOKEN_ENCRYPTION_KEY: newKey() })],
  ])(
    'sealed, and read %s: the start-up stops naming the variable; the stored key is left as it was',
    async (_case, env) => {
      const key = newKey();
      const { sql } = await databaseWith(sealing(key));
      const before = await storedKey(sql);
      const copy = await openTestPglite();
      await copy.query('INSERT INTO service_secrets (name, secret) VALUES ($1, $2)', [NAME, before]);
      await expect(start(copy, env())).rejects.toThrow(/TOKEN_ENCRYPTION_KEY/);
      // Nothing written over it: the instance with the right key still reads it.
      expect(await storedKey(sql)).toEqual(before);
      const gatehouse = await start(sql, { TOKEN_ENCRYPTION_KEY: key });
      await gatehouse.close();
    },
  );
});

describe('KeptSecret', () => {
  /** The real store, failing its first `failures` reads as a store that is down does. */
  function flaky(secrets: ServiceSecrets, failures: number): ServiceSecrets & { reads: number } {
    return {
      reads: 0,
      async obtain(name, candidate) {
        this.reads += 1;
        if (this.reads <= failures) throw new Error('store down');
        return secrets.obtain(name, candidate);
      },
      replace: (name, current, next) => secrets.replace(name, current, next),
    };
  }

  it('reads the store once per process, and again after a failure', async () => {
    const secrets = flaky(new SqlServiceSecrets(await openTestPglite()), 1);
    const kept = new KeptSecret(secrets, NAME, { bytes: 32, random: nodeRandom }, sealing(newKey()));
    await expect(kept.read()).rejects.toThrow('store down');
    const first = await kept.read();
    expect(await kept.read()).toBe(first);
    expect(await Promise.all([kept.read(), kept.read()])).toEqual([first, first]);
    expect(secrets.reads).toBe(2);
  });

  it('gives every instance sharing the store the same key, sealed or not', async () => {
    const sql = await openTestPglite();
    const key = newKey();
    const instances = [sealing(key), sealing(key), null, sealing(key)].map(
      (each) => new KeptSecret(new SqlServiceSecrets(sql), NAME, { bytes: 32, random: nodeRandom }, each),
    );
    // The first (sealed) write wins; the one without the key cannot read it, the others can.
    const first = await instances[0]!.read();
    expect(await instances[1]!.read()).toEqual(first);
    await expect(instances[2]!.read()).rejects.toThrow(/TOKEN_ENCRYPTION_KEY/);
    expect(await instances[3]!.read()).toEqual(first);
  });
});
