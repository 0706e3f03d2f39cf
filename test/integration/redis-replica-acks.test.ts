/**
 * A revocation is answered only once a replica holds it (Redis `WAIT`, on a cluster): here one
 * master with one replica of the test's own, and the session repository set to wait for one. A
 * frozen replica (SIGSTOP) acknowledges nothing, so the deletion fails (503 for the client, whose
 * retry finds the deletion done); a master without any replica has nothing to wait for. The
 * failover itself is in the fault suite (test/faults/redis-revocation-durability.test.ts).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedReplicasIn } from '../../src/adapters/redis/redis-replication.js';
import { RedisSessionStore } from '../../src/adapters/redis/redis-session-store.js';
import type { StoredSession } from '../../src/domain/session/session.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { contractSession } from '../../src/testing/stores.js';
import { T0 } from '../contract/user-repository.contract.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

/** A session kept by the store until its own absolute end (the keep-until the service gives). */
function keptUntilItsEnd(session: StoredSession): [StoredSession, Date] {
  return [session, session.expiresAt];
}

const ACKS = { replicas: 1, timeoutMs: 200 };

async function connectedReplicas(redis: Redis): Promise<number> {
  return connectedReplicasIn(await redis.info('replication'));
}

/** How many times the server has run `command` (INFO commandstats), 0 before the first. */
async function callsOf(redis: Redis, command: string): Promise<number> {
  const stats = await redis.info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

/** Waits (by polling the master, not by time) until the replica is connected and in sync. */
async function untilInSync(master: TestRedis): Promise<void> {
  for (;;) {
    const info = await master.client.info('replication');
    if (/slave0:.*state=online/.test(info)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('Redis session revocations wait for a replica [redis]', () => {
  let master: TestRedis;
  let replica: TestRedis;
  let alone: TestRedis;
  let client: Redis;

  beforeAll(async () => {
    master = await startTestRedis();
    replica = await startTestRedis(['--replicaof', '127.0.0.1', String(master.port)]);
    alone = await startTestRedis();
    await untilInSync(master);
    client = new Redis({ port: master.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    replica?.signal('SIGCONT');
    client?.disconnect();
    await Promise.all([replica?.close(), master?.close(), alone?.close()]);
  });

  const repository = (redis: Redis, keyPrefix: string) =>
    new RedisSessionStore(redis, { keyPrefix, replicaAcks: ACKS });

  it('deletes at once when the replica acknowledges', async () => {
    const sessions = repository(client, 'acked:');
    const session = contractSession('u1', { createdAt: T0 });
    await sessions.create(...keptUntilItsEnd(session));
    expect(await sessions.deleteByTokenHash(session.tokenHash)).toMatchObject({ handle: session.handle });
    expect(await sessions.findByTokenHash(session.tokenHash)).toBeNull();
  });

  it('fails a deletion no replica acknowledged in time (503); the retry finds it done', async () => {
    const sessions = repository(client, 'frozen:');
    const session = contractSession('u1', { createdAt: T0 });
    await sessions.create(...keptUntilItsEnd(session));
    expect(await connectedReplicas(client)).toBe(1);
    replica.signal('SIGSTOP');
    let error: unknown;
    try {
      error = await sessions.deleteByTokenHash(session.tokenHash).then(
        () => null,
        (thrown: unknown) => thrown,
      );
    } finally {
      replica.signal('SIGCONT');
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('SERVICE_UNAVAILABLE');
    expect(String((error as DomainError).cause)).toContain(
      'session deletion confirmed by 0 of 1 replicas in time',
    );
    // The master deleted it: the client's retry (idempotent) ends nothing more, and answers.
    await untilInSync(master);
    expect(await sessions.deleteByTokenHash(session.tokenHash)).toBeNull();
    expect(await sessions.findByTokenHash(session.tokenHash)).toBeNull();
  });

  it('a deletion of nothing needs no acknowledgement', async () => {
    const sessions = repository(client, 'nothing:');
    replica.signal('SIGSTOP');
    try {
      expect(await sessions.deleteByTokenHash('0'.repeat(64))).toBeNull();
    } finally {
      replica.signal('SIGCONT');
    }
  });

  it('a repository told to wait for no replica deletes without a WAIT', async () => {
    const sessions = new RedisSessionStore(client, {
      keyPrefix: 'none-asked:',
      replicaAcks: { replicas: 0, timeoutMs: 200 },
    });
    const session = contractSession('u1', { createdAt: T0 });
    await sessions.create(...keptUntilItsEnd(session));
    const waits = await callsOf(client, 'wait');
    expect(await sessions.deleteByTokenHash(session.tokenHash)).toMatchObject({ handle: session.handle });
    expect(await callsOf(client, 'wait')).toBe(waits);
  });

  it('a master without any replica deletes without waiting for one', async () => {
    const sessions = repository(alone.client, 'alone:');
    const session = contractSession('u1', { createdAt: T0 });
    await sessions.create(...keptUntilItsEnd(session));
    expect(await connectedReplicas(alone.client)).toBe(0);
    expect(await sessions.deleteByTokenHash(session.tokenHash)).toMatchObject({ handle: session.handle });
  });
});
