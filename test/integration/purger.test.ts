/**
 * The periodic purge (src/application/purger.ts) on both stores: what goes, what stays, and the
 * batch bound, driven by the TestClock and one cycle at a time.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { Purger, type PurgeSettings } from '../../src/application/purger.js';
import { auditEvent } from '../../src/domain/audit/audit-event.js';
import { newWebAuthnChallenge } from '../../src/domain/mfa/webauthn-challenge.js';
import { contractSession } from '../../src/testing/stores.js';
import { newUser } from '../contract/user-repository.contract.js';
import { forEachStore, truncateAll } from '../support/databases.js';
import { TestClock } from '../support/test-clock.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const SETTINGS: PurgeSettings = {
  intervalS: 300,
  batchSize: 1000,
  maxBatchesPerCycle: 20,
  idleTimeoutS: 1800,
  throttleWindowS: 900,
  auditRetentionDays: 90,
};

async function count(client: SqlClient, table: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]!.n;
}

forEachStore('purger', (open) => {
  let client: SqlClient;
  let store: SqlStore;
  let clock: TestClock;
  let userId: string;

  beforeAll(async () => {
    client = await open();
    store = new SqlStore(client, []);
  });
  afterAll(async () => {
    await client?.close();
  });
  beforeEach(async () => {
    await truncateAll(client);
    clock = new TestClock(T0);
    userId = (await store.users.create(newUser(), T0)).userId;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /** `n` sessions opened now (by the test clock), last seen now. */
  async function openSessions(n: number): Promise<string[]> {
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) {
      const session = contractSession(userId, { createdAt: clock.now() });
      await store.sessions.create(session);
      hashes.push(session.tokenHash);
    }
    return hashes;
  }

  it('deletes sessions past their idle or absolute time-out, and keeps live ones', async () => {
    const idle = await openSessions(3);
    clock.advance(1000 * 1000); // 1000 s
    const live = await openSessions(2);
    clock.advance(1000 * 1000); // `idle`: 2000 s idle > 1800 s; `live`: 1000 s
    const untouched = new Purger(store, clock, SETTINGS);
    expect(await untouched.runOnce()).toEqual({
      sessions: 3,
      throttle: 0,
      audit: 0,
      logoutTokens: 0,
      webauthnChallenges: 0,
    });
    for (const hash of idle) expect(await store.sessions.findByTokenHash(hash)).toBeNull();
    for (const hash of live) expect(await store.sessions.findByTokenHash(hash)).not.toBeNull();

    // Kept alive by requests, they still end at the absolute time-out (12 h).
    for (let hour = 0; hour < 12; hour++) {
      clock.advance(HOUR_MS);
      for (const hash of live) await store.sessions.touch(hash, clock.now());
    }
    expect((await untouched.runOnce()).sessions).toBe(2);
    expect(await count(client, 'sessions')).toBe(0);
  });

  it('deletes throttling rows whose failure window is over', async () => {
    await store.throttle.reserve('user:old', 5, clock.now(), 900);
    clock.advance(500 * 1000);
    await store.throttle.reserve('user:running', 5, clock.now(), 900);
    clock.advance(500 * 1000);
    await store.throttle.reserve('user:recent', 5, clock.now(), 900);
    expect((await new Purger(store, clock, SETTINGS).runOnce()).throttle).toBe(1);
    const { rows } = await client.query<{ key: string }>('SELECT key FROM login_throttle ORDER BY key');
    expect(rows.map((row) => row.key)).toEqual(['user:recent', 'user:running']);
  });

  it('deletes WebAuthn challenges past their 5 minutes', async () => {
    const challenge = (boundTo: string) =>
      newWebAuthnChallenge(nodeRandom, clock.now(), { ceremony: 'passkey_login', boundTo });
    await store.mfa.saveWebAuthnChallenge(challenge('old'));
    clock.advance(200 * 1000);
    await store.mfa.saveWebAuthnChallenge(challenge('young'));
    clock.advance(100 * 1000);
    expect((await new Purger(store, clock, SETTINGS).runOnce()).webauthnChallenges).toBe(1);
    const { rows } = await client.query<{ bound_to: string }>('SELECT bound_to FROM webauthn_challenges');
    expect(rows.map((row) => row.bound_to)).toEqual(['young']);
  });

  it('deletes audit events past AUDIT_RETENTION_DAYS; 0 keeps them for ever', async () => {
    for (const age of [100, 91, 89, 1]) {
      await store.audit.record(
        auditEvent({
          occurredAt: new Date(T0.getTime() - age * DAY_MS),
          event: 'login',
          actor: 'user',
          userId,
        }),
      );
    }
    expect((await new Purger(store, clock, { ...SETTINGS, auditRetentionDays: 0 }).runOnce()).audit).toBe(0);
    expect((await new Purger(store, clock, SETTINGS).runOnce()).audit).toBe(2);
    const left = await store.audit.listForUser(userId, { limit: 10 });
    expect(left.map((event) => (T0.getTime() - event.occurredAt.getTime()) / DAY_MS)).toEqual([89, 1]);
  });

  it('never deletes more than batchSize rows in one statement, nor more than the cycle bound', async () => {
    await openSessions(7);
    clock.advance(DAY_MS);
    const purgeExpired = vi.spyOn(store.sessions, 'purgeExpired');
    const purger = new Purger(store, clock, { ...SETTINGS, batchSize: 2, maxBatchesPerCycle: 2 });

    expect((await purger.runOnce()).sessions).toBe(4);
    expect(purgeExpired.mock.calls.map((call) => call[2])).toEqual([2, 2]);
    expect(await count(client, 'sessions')).toBe(3);

    // The next cycle goes on; a short batch ends it early.
    expect((await purger.runOnce()).sessions).toBe(3);
    expect((await purger.runOnce()).sessions).toBe(0);
    expect(purgeExpired.mock.calls.map((call) => call[2])).toEqual([2, 2, 2, 2, 2]);
    expect(await count(client, 'sessions')).toBe(0);
  });

  it('runs on its timer once started, and stop() waits for the cycle under way', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await openSessions(2);
    clock.advance(DAY_MS);
    const purged: unknown[] = [];
    const purger = new Purger(store, clock, SETTINGS, { purged: (counts) => purged.push(counts) });
    purger.start();
    purger.start(); // idempotent
    vi.advanceTimersByTime(299_000);
    expect(await count(client, 'sessions')).toBe(2);
    vi.advanceTimersByTime(1000);
    await purger.stop();
    expect(await count(client, 'sessions')).toBe(0);
    expect(purged).toEqual([{ sessions: 2, throttle: 0, audit: 0, logoutTokens: 0, webauthnChallenges: 0 }]);
    // Stopped: no further cycle.
    await openSessions(1);
    clock.advance(DAY_MS);
    vi.advanceTimersByTime(600_000);
    expect(await count(client, 'sessions')).toBe(1);
  });

  it('is off with an interval of 0, and reports a failed cycle instead of throwing', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const off = new Purger(store, clock, { ...SETTINGS, intervalS: 0 });
    const runOnce = vi.spyOn(off, 'runOnce');
    off.start();
    vi.advanceTimersByTime(3_600_000);
    expect(runOnce).not.toHaveBeenCalled();

    const failures: unknown[] = [];
    const failing = new Purger(store, clock, SETTINGS, { failed: (error) => failures.push(error) });
    vi.spyOn(store.sessions, 'purgeExpired').mockRejectedValue(new Error('store down'));
    failing.start();
    vi.advanceTimersByTime(300_000);
    await failing.stop();
    expect(failures).toEqual([new Error('store down')]);
  });
});
