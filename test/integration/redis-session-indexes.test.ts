/**
 * The Redis session store's revocations leave no index entry behind, seen in Redis itself:
 * the user's index and the SSO indexes lose a session's entries when it ends, stale entries are
 * dropped, and `evictBeyond` ends the oldest sessions beyond the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisSessionStore } from '../../src/adapters/redis/redis-session-store.js';
import type { StoredSession } from '../../src/domain/session/session.js';
import { contractSession } from '../../src/testing/stores.js';
import { T0 as CONTRACT_T0 } from '../contract/user-repository.contract.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

/** A session kept by the store until its own absolute end (the keep-until the service gives). */
function keptUntilItsEnd(session: StoredSession): [StoredSession, Date] {
  return [session, session.expiresAt];
}

const T0 = new Date('2025-01-01T00:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const SSO = {
  provider: 'default',
  issuer: 'https://idp.example',
  subject: 'sub-1',
  sid: 'sid-1',
  idToken: 'id.token.here',
  accessTokenSealed: 'v1.a',
  refreshTokenSealed: 'v1.r',
};

describe('Redis session indexes after revocations [redis]', () => {
  let redis: TestRedis;
  let run = 0;

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(() => redis?.close());

  function repository() {
    run += 1;
    const keyPrefix = `ix${run}:`;
    return {
      keyPrefix,
      sessions: new RedisSessionStore(redis.client, { keyPrefix }),
    };
  }
  const keys = async (prefix: string) => (await redis.client.keys(`${prefix}*`)).sort();

  it('ending an SSO session removes it from the user index and both SSO indexes', async () => {
    const { keyPrefix, sessions } = repository();
    const session = contractSession('u1', { createdAt: CONTRACT_T0, sso: SSO });
    await sessions.create(...keptUntilItsEnd(session));
    expect(await keys(keyPrefix)).toHaveLength(4);
    const ended = await sessions.deleteByTokenHash(session.tokenHash);
    expect(ended?.sso).toEqual(SSO);
    expect(await keys(keyPrefix)).toEqual([]);
  });

  it('ending all of a user’s sessions but one keeps only that one in the index, and drops stale entries', async () => {
    const { keyPrefix, sessions } = repository();
    const [kept, other, gone] = [
      contractSession('u1', { createdAt: CONTRACT_T0 }),
      contractSession('u1', { createdAt: CONTRACT_T0 }),
      contractSession('u1', { createdAt: CONTRACT_T0 }),
    ];
    for (const session of [kept, other, gone]) await sessions.create(...keptUntilItsEnd(session!));
    // A session whose key went (timed out in Redis) leaves a stale index entry.
    await redis.client.del(`${keyPrefix}s:${gone!.tokenHash}`);
    expect(await sessions.deleteAllForUser('u1', kept!.tokenHash)).toBe(1);
    const members = await redis.client.zrange(`${keyPrefix}u:{u1}`, '0', '-1');
    expect(members).toHaveLength(1);
    expect(members[0]).toContain(kept!.tokenHash);
    expect(await sessions.findByTokenHash(kept!.tokenHash)).not.toBeNull();
  });

  it('a back-channel logout drops SSO index entries whose session is gone', async () => {
    const { keyPrefix, sessions } = repository();
    const session = contractSession('u1', { createdAt: CONTRACT_T0, sso: SSO });
    await sessions.create(...keptUntilItsEnd(session));
    await redis.client.del(`${keyPrefix}s:${session.tokenHash}`);
    expect(await sessions.deleteBySso(SSO, { sid: SSO.sid })).toEqual([]);
    expect(await sessions.deleteBySso(SSO, { subject: SSO.subject })).toEqual([]);
    expect(await sessions.deleteBySso(SSO, {})).toEqual([]);
    const left = await keys(`${keyPrefix}o:`);
    for (const key of left) expect(await redis.client.scard(key)).toBe(0);
  });

  it('evicts the sessions beyond the newest `keep`, oldest first, without their provider tokens', async () => {
    const { keyPrefix, sessions } = repository();
    const created = [0, 10, 20].map((s) =>
      contractSession('u1', { createdAt: at(s), lastSeenAt: at(s), sso: SSO }),
    );
    for (const session of created) await sessions.create(...keptUntilItsEnd(session));
    const evicted = await sessions.evictBeyond('u1', 1);
    expect(evicted.map((session) => session.handle).sort()).toEqual(
      [created[0]!.handle, created[1]!.handle].sort(),
    );
    expect(evicted[0]!.sso).toEqual({
      provider: SSO.provider,
      issuer: SSO.issuer,
      subject: SSO.subject,
      sid: SSO.sid,
    });
    expect(await sessions.findByTokenHash(created[2]!.tokenHash)).not.toBeNull();
    expect(await redis.client.zcard(`${keyPrefix}u:{u1}`)).toBe(1);
    expect(await sessions.evictBeyond('u1', 1)).toEqual([]);
  });

  it('evicts past a stale index entry without counting it', async () => {
    const { keyPrefix, sessions } = repository();
    const created = [0, 10, 20].map((s) => contractSession('u1', { createdAt: at(s), lastSeenAt: at(s) }));
    for (const session of created) await sessions.create(...keptUntilItsEnd(session));
    await redis.client.del(`${keyPrefix}s:${created[0]!.tokenHash}`);
    const evicted = await sessions.evictBeyond('u1', 1);
    expect(evicted.map((session) => session.handle)).toEqual([created[1]!.handle]);
  });
});
