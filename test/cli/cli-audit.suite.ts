import { afterAll, beforeAll, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import { auditEvent } from '../../src/domain/audit/audit-event.js';
import { EMPTY_ATTRIBUTES } from '../../src/domain/user/user.js';
import type { StoreKind } from '../support/databases.js';
import {
  type CliTarget,
  describeCliStore,
  GOOD_PASSWORD,
  openCliTarget,
  runGatehouse,
  sessionFor,
  unique,
} from './cli-support.js';

/**
 * `gatehouse audit --user U [--since T]`, and the audit events the administration commands write
 * (user disable/enable, set-password, sessions revoke), as child processes.
 */
export function auditSuite(kind: StoreKind): void {
  describeCliStore(kind, 'gatehouse audit and the administration audit events', () => {
    let target: CliTarget;
    const hasher = new Argon2PasswordHasher();
    const username = unique('dan');
    const userId = `u-${username}`;
    const handles = [unique('h'), unique('h'), unique('h'), unique('h')];

    const gatehouse = (args: string[], input?: string) =>
      runGatehouse(args, { env: target.env, ...(input === undefined ? {} : { input }) });

    beforeAll(async () => {
      target = await openCliTarget(kind);
      await target.withStore(async (store) => {
        await store.users.create(
          {
            ...EMPTY_ATTRIBUTES,
            userId,
            username,
            userLevel: 16,
            tenantId: null,
            groupId: null,
            backendName: null,
            passwordHash: await hasher.hash('the users own password'),
            mustChangePassword: false,
          },
          new Date(),
        );
        for (const handle of handles) await store.sessions.create(sessionFor(userId, handle));
        // An old event, to show --since at work.
        await store.audit.record(
          auditEvent({
            occurredAt: new Date('2020-01-01T00:00:00.000Z'),
            event: 'login',
            actor: 'user',
            userId,
            username,
            method: 'password',
            clientAddress: '192.0.2.1\u001b[31m',
          }),
        );
      });
    });
    afterAll(async () => {
      await target?.close();
    });

    it('each administration command writes its event with the change', async () => {
      expect(
        (await gatehouse(['sessions', 'revoke', '--user', username, '--handle', handles[0]!])).code,
      ).toBe(0);
      expect((await gatehouse(['sessions', 'revoke', '--user', username])).code).toBe(0);
      await target.withStore(async (store) => {
        for (const handle of handles.slice(0, 2)) await store.sessions.create(sessionFor(userId, handle));
      });
      expect((await gatehouse(['user', 'disable', username])).code).toBe(0);
      expect((await gatehouse(['user', 'enable', username])).code).toBe(0);
      const set = await gatehouse(
        ['user', 'set-password', username, '--password-stdin'],
        `${GOOD_PASSWORD}\n`,
      );
      expect(set.code).toBe(0);

      await target.withStore(async (store) => {
        const events = await store.audit.listForUser(userId, { limit: 100 });
        expect(
          events.slice(1).map((e) => [e.event, e.reason, e.actor, e.sessionCount, e.sessionHandle]),
        ).toEqual([
          ['session_revoked', 'administrator', 'administrator', 1, handles[0]],
          ['session_revoked', 'administrator', 'administrator', 3, null],
          ['user_disabled', null, 'administrator', null, null],
          ['session_revoked', 'user_disabled', 'administrator', 2, null],
          ['user_enabled', null, 'administrator', null, null],
          ['password_change', null, 'administrator', null, null],
        ]);
        const { rows } = await store.client.query<{ row: string }>(
          'SELECT row_to_json(a)::text AS row FROM audit_events a',
        );
        expect(rows.map((r) => r.row).join('\n')).not.toContain(GOOD_PASSWORD);
      });
    });

    it('audit --user prints the events, oldest first, one a line, without control characters', async () => {
      const result = await gatehouse(['audit', '--user', username.toUpperCase()]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(`7 audit events of "${username}"`);
      expect(lines[1]).toBe(
        '  2020-01-01T00:00:00.000Z  login  success  method=password  actor=user  from=192.0.2.1\\u{1B}[31m',
      );
      expect(lines[2]).toMatch(
        new RegExp(
          `^  \\S+Z  session_revoked  success  reason=administrator  actor=administrator  session=${handles[0]}  sessions=1$`,
        ),
      );
      expect(lines.at(-1)).toMatch(/ {2}password_change {2}success {2}actor=administrator$/);
    });

    it('audit --since keeps the recent events (a date-time or an age)', async () => {
      const recent = await gatehouse(['audit', '--user', username, '--since', '2021-01-01']);
      expect(recent.code).toBe(0);
      expect(recent.stdout).toMatch(/^6 audit events of ".+" since 2021-01-01T00:00:00\.000Z\n/);
      const none = await gatehouse(['audit', '--user', username, '--since', '2099-01-01T00:00:00Z']);
      expect(none.stdout).toBe(`0 audit events of "${username}" since 2099-01-01T00:00:00.000Z\n`);
      const lastDay = await gatehouse(['audit', '--user', username, '--since', '24h', '--limit', '2']);
      expect(lastDay.stdout.trimEnd().split('\n')).toHaveLength(3);
    });

    it('refuses an unknown user (exit 1, NOT_FOUND) and a bad command line (exit 2)', async () => {
      const unknown = await gatehouse(['audit', '--user', 'nobody-here']);
      expect(unknown).toMatchObject({ code: 1, stdout: '' });
      expect(unknown.stderr).toMatch(/^error NOT_FOUND: no user "nobody-here"\n/);
      for (const args of [
        ['audit', '--user', ''],
        ['audit', '--user', username, '--since', 'yesterday'],
        ['audit', '--user', username, '--limit', '0'],
        ['audit', 'extra', '--user', username],
      ]) {
        const result = await gatehouse(args);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toMatch(/^error USAGE: /);
      }
    });
  });
}
