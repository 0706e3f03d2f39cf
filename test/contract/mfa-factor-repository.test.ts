import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryMfaFactorRepository } from '../../src/adapters/memory/memory-mfa-factor-repository.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlMfaFactorRepository } from '../../src/adapters/sql/sql-mfa-factor-repository.js';
import { SqlUserRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { forEachStore, truncateAll } from '../support/databases.js';
import { mfaFactorRepositoryContract } from './mfa-factor-repository.contract.js';
import { newUser, T0 } from './user-repository.contract.js';

// The in-memory adapter: users are ids, nothing more.
describe('second factors [memory]', () => {
  mfaFactorRepositoryContract(async () => {
    let next = 0;
    return {
      factors: new MemoryMfaFactorRepository(),
      newUserId: async () => `u-memory-${++next}`,
    };
  });
});

// One database per store for this file, emptied before each test (as test/integration/storage.test.ts).
forEachStore('second factors', (open) => {
  let client: SqlClient;

  beforeAll(async () => {
    client = await open();
  });
  afterAll(async () => {
    await client?.close();
  });

  const newUserId = async () => (await new SqlUserRepository(client).create(newUser(), T0)).userId;

  mfaFactorRepositoryContract(async () => {
    await truncateAll(client);
    return { factors: new SqlMfaFactorRepository(client), newUserId };
  });

  it('forgets a user’s factors with the user (migration 0012: ON DELETE CASCADE)', async () => {
    await truncateAll(client);
    const factors = new SqlMfaFactorRepository(client);
    const userId = await newUserId();
    await factors.addPendingTotp({ factorId: 'f-1', userId, sealedSecret: 'sealed', createdAt: T0 });
    await factors.replaceRecoveryCodes(userId, ['a'.repeat(64)], T0);
    await factors.addWebAuthnCredential({
      credentialId: 'c-1',
      userId,
      name: 'Key',
      publicKey: new Uint8Array([1, 2, 3]),
      signCount: 0,
      transports: [],
      createdAt: T0,
      lastUsedAt: null,
    });
    await client.query('DELETE FROM users WHERE user_id = $1', [userId]);
    expect(await factors.factorsOf(userId)).toEqual({ totp: null, webauthn: [], recoveryCodesLeft: 0 });
    for (const table of ['mfa_totp_factors', 'mfa_webauthn_credentials', 'mfa_recovery_codes']) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
      expect(rows[0]?.n, table).toBe(0);
    }
  });

  it('reads a step back as a number, beyond 32 bits too (bigint: pg and PGlite answer it differently)', async () => {
    await truncateAll(client);
    const factors = new SqlMfaFactorRepository(client);
    const userId = await newUserId();
    await factors.addPendingTotp({ factorId: 'f-big', userId, sealedSecret: 'sealed', createdAt: T0 });
    const step = 2 ** 31 + 5;
    expect(await factors.confirmTotp(userId, 'f-big', step, T0)).toBe(true);
    expect(await factors.acceptTotpStep(userId, 'f-big', step + 1)).toBe(true);
    expect((await factors.factorsOf(userId)).totp?.lastAcceptedStep).toBe(step + 1);
  });
});
