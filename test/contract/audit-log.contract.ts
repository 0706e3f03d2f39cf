import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEvent, auditEvent } from '../../src/domain/audit/audit-event.js';
import type { AuditLog } from '../../src/domain/audit/audit-log.port.js';

export interface AuditLogHandle {
  audit: AuditLog;
  /** Runs `work` in one transaction of the same store (rolled back when it throws). */
  transaction<T>(work: (audit: AuditLog) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const T0 = new Date('2030-01-01T00:00:00.000Z');
const DAY_S = 86_400;

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

function login(userId: string | null, occurredAt: Date, overrides: Partial<AuditEvent> = {}): AuditEvent {
  return auditEvent({
    occurredAt,
    event: 'login',
    actor: 'user',
    userId,
    username: userId ? `name-of-${userId}` : null,
    method: 'password',
    clientAddress: '192.0.2.7',
    ...overrides,
  });
}

/** The behaviour every AuditLog must show. `open` gives an empty store. */
export function auditLogContract(open: () => Promise<AuditLogHandle>): void {
  describe('AuditLog contract', () => {
    let handle: AuditLogHandle;
    let audit: AuditLog;

    beforeEach(async () => {
      handle = await open();
      audit = handle.audit;
    });
    afterEach(async () => {
      await handle.close();
    });

    it('records an event and reads every column back', async () => {
      const event: AuditEvent = {
        occurredAt: at(5),
        event: 'session_revoked',
        outcome: 'success',
        reason: 'administrator',
        userId: 'u-ann',
        username: 'ann',
        actor: 'administrator',
        sessionHandle: 'h-123',
        sessionCount: 3,
        clientAddress: '2001:db8::1',
        method: 'sso',
        providerId: 'acme',
      };
      await audit.record(event);
      const [read, ...rest] = await audit.listForUser('u-ann', { limit: 10 });
      expect(rest).toEqual([]);
      expect(read).toEqual({ ...event, id: expect.any(String) });
    });

    it('keeps nulls as nulls (unknown-user failure: no user, no username)', async () => {
      await audit.record(login(null, at(0), { outcome: 'failure', reason: 'unknown_user' }));
      await audit.record(login('u-1', at(1)));
      expect(await audit.listForUser('u-1', { limit: 10 })).toHaveLength(1);
      // Purging everything shows the unknown-user row existed, with its nulls.
      expect(await audit.purgeOlderThan(at(10), 10)).toBe(2);
    });

    it("lists only that user's events, oldest first, from `since` inclusive", async () => {
      await audit.record(login('u-1', at(30)));
      await audit.record(login('u-2', at(20)));
      await audit.record(login('u-1', at(10), { outcome: 'failure', reason: 'bad_password' }));
      await audit.record(login('u-1', at(20), { event: 'logout' }));

      const all = await audit.listForUser('u-1', { limit: 10 });
      expect(all.map((record) => record.occurredAt)).toEqual([at(10), at(20), at(30)]);
      expect(all.every((record) => record.userId === 'u-1')).toBe(true);
      expect(all[0]).toMatchObject({ outcome: 'failure', reason: 'bad_password' });

      const since = await audit.listForUser('u-1', { since: at(20), limit: 10 });
      expect(since.map((record) => record.event)).toEqual(['logout', 'login']);
      expect(await audit.listForUser('u-3', { limit: 10 })).toEqual([]);
    });

    it('lists every event since a time, with or without a user, the latest `limit` oldest first', async () => {
      await audit.record(login('u-1', at(10)));
      await audit.record({
        ...login(null, at(20)),
        event: 'provider_added',
        actor: 'administrator',
        providerId: 'acme',
      });
      await audit.record(login('u-2', at(30)));
      await audit.record(login('u-1', at(5)));
      const since = await audit.listSince(at(10), 10);
      expect(since.map((record) => [record.occurredAt, record.event, record.providerId])).toEqual([
        [at(10), 'login', null],
        [at(20), 'provider_added', 'acme'],
        [at(30), 'login', null],
      ]);
      expect((await audit.listSince(at(0), 2)).map((record) => record.occurredAt)).toEqual([at(20), at(30)]);
    });

    it('with more events than the limit, gives the latest ones (still oldest first)', async () => {
      for (let i = 0; i < 5; i++) await audit.record(login('u-1', at(i)));
      const latest = await audit.listForUser('u-1', { limit: 2 });
      expect(latest.map((record) => record.occurredAt)).toEqual([at(3), at(4)]);
    });

    it('orders events of the same instant by insertion, with distinct ids', async () => {
      await audit.record(login('u-1', at(0), { event: 'password_change' }));
      await audit.record(login('u-1', at(0), { event: 'session_revoked', reason: 'password_change' }));
      const records = await audit.listForUser('u-1', { limit: 10 });
      expect(records.map((record) => record.event)).toEqual(['password_change', 'session_revoked']);
      expect(new Set(records.map((record) => record.id)).size).toBe(2);
    });

    it('records 50 events in parallel, each once', async () => {
      await Promise.all(Array.from({ length: 50 }, (_, i) => audit.record(login('u-p', at(i % 7)))));
      const records = await audit.listForUser('u-p', { limit: 100 });
      expect(records).toHaveLength(50);
      expect(new Set(records.map((record) => record.id)).size).toBe(50);
    });

    it('purges events older than the cutoff, oldest first, at most `limit` at a time', async () => {
      for (let day = 0; day < 5; day++) await audit.record(login('u-1', at(day * DAY_S)));
      const cutoff = at(3 * DAY_S);
      expect(await audit.purgeOlderThan(cutoff, 2)).toBe(2);
      expect((await audit.listForUser('u-1', { limit: 10 })).map((r) => r.occurredAt)).toEqual([
        at(2 * DAY_S),
        at(3 * DAY_S),
        at(4 * DAY_S),
      ]);
      expect(await audit.purgeOlderThan(cutoff, 2)).toBe(1);
      expect(await audit.purgeOlderThan(cutoff, 2)).toBe(0);
      // The cutoff itself is kept.
      expect(await audit.listForUser('u-1', { limit: 10 })).toHaveLength(2);
    });

    it('writes with the transaction it belongs to: a rollback leaves no record', async () => {
      await handle.transaction(async (inTransaction) => {
        await inTransaction.record(login('u-tx', at(0)));
      });
      await expect(
        handle.transaction(async (inTransaction) => {
          await inTransaction.record(login('u-tx', at(1)));
          throw new Error('the change this event records failed');
        }),
      ).rejects.toThrow('the change this event records failed');
      const records = await audit.listForUser('u-tx', { limit: 10 });
      expect(records.map((record) => record.occurredAt)).toEqual([at(0)]);
    });
  });
}
