import { afterAll, beforeAll, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import { EMPTY_ATTRIBUTES } from '../../src/domain/user/user.js';
import { describeLevel } from '../../src/domain/user/user-rules.js';
import type { StoreKind } from '../support/databases.js';
import {
  type CliTarget,
  countRows,
  describeCliStore,
  GOOD_PASSWORD,
  openCliTarget,
  runGatehouse,
  sessionFor,
  unique,
} from './cli-support.js';

/** `gatehouse user set-password|expire|disable|enable` and `sessions list|revoke [--all]`, as child processes. */
export function accountsSuite(kind: StoreKind): void {
  describeCliStore(kind, 'gatehouse user and sessions administration', () => {
    let target: CliTarget;
    const hasher = new Argon2PasswordHasher();
    // bob: set-password and expire; carol: disable and enable; eve: sessions list and revoke.
    // dan: show and reset-mfa.
    const [bob, carol, eve, dan] = [unique('bob'), unique('carol'), unique('eve'), unique('dan')];
    const sessions: Record<string, string[]> = {
      [bob]: [unique('hb'), unique('hb')],
      [carol]: [unique('hc'), unique('hc'), unique('hc')],
      [eve]: [unique('he'), unique('he')],
      [dan]: [],
    };
    const userId = (username: string) => `u-${username}`;

    const gatehouse = (args: string[], input?: string) =>
      runGatehouse(args, { env: target.env, ...(input === undefined ? {} : { input }) });

    beforeAll(async () => {
      target = await openCliTarget(kind);
      // Seeded straight into the store: each command run costs a process start.
      await target.withStore(async (store) => {
        await store.directory.addTenant('t1', null);
        await store.directory.addGroup('g1', 't1', null);
        const passwordHash = await hasher.hash('the users own password');
        for (const [username, handles] of Object.entries(sessions)) {
          await store.users.create(
            {
              ...EMPTY_ATTRIBUTES,
              userId: userId(username),
              username,
              userLevel: 0,
              tenantId: 't1',
              groupId: 'g1',
              backendName: null,
              passwordHash,
              mustChangePassword: false,
            },
            new Date(),
          );
          for (const handle of handles) await store.sessions.create(sessionFor(userId(username), handle));
        }
      });
    });
    afterAll(async () => {
      await target?.close();
    });

    it('set-password sets a must-change password and ends every session of that user only', async () => {
      const result = await gatehouse(
        ['user', 'set-password', bob, '--password-stdin'],
        `${GOOD_PASSWORD}\r\n`,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `set the password of "${bob}"; it must be changed at next login\nended 2 sessions\n`,
      );
      await target.withStore(async (store) => {
        const user = await store.users.findByUserId(userId(bob));
        expect(user!.mustChangePassword).toBe(true);
        expect(await hasher.verify(user!.passwordHash!, GOOD_PASSWORD)).toBe(true);
        expect(await store.sessions.listForUser(userId(bob))).toEqual([]);
        expect(await store.sessions.listForUser(userId(eve))).toHaveLength(2);
      });
    });

    it('expire sets the credentials expiry to now', async () => {
      const before = Date.now();
      const result = await gatehouse(['user', 'expire', bob]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(`^the credentials of "${bob}" expired at \\d{4}-\\d{2}-\\d{2}T`),
      );
      await target.withStore(async (store) => {
        const at = (await store.users.findByUserId(userId(bob)))!.credentialsExpireAt;
        expect(at!.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(at!.getTime()).toBeLessThanOrEqual(Date.now());
      });
    });

    it('reset-sso forgets the provider account a user is bound to, audited; saying so when there was none (issue 11, finding 6)', async () => {
      await target.withStore(async (store) => {
        expect(
          await store.users.bindProviderAccount(userId(bob), {
            provider: 'default',
            issuer: 'https://idp.example',
            subject: 'b-1',
          }),
        ).toBe('bound');
      });
      const reset = await gatehouse(['user', 'reset-sso', bob]);
      expect(reset).toMatchObject({
        code: 0,
        stdout: `"${bob}" is no longer bound to a provider account; the next SSO login binds it; ended 0 sessions made through that provider\n`,
      });
      await target.withStore(async (store) => {
        expect((await store.users.findByUserId(userId(bob)))!.ssoIdentity).toBeNull();
        const trail = await store.audit.listForUser(userId(bob), { limit: 100 });
        expect(trail.filter((event) => event.event === 'sso_binding_reset')).toHaveLength(1);
      });
      expect((await gatehouse(['user', 'reset-sso', bob])).stdout).toBe(
        `"${bob}" was not bound to a provider account\n`,
      );
    });

    it('show lists the second factors without a secret; reset-mfa removes them all, ends the sessions, audited (contract 3b)', async () => {
      const created = new Date('2026-11-01T10:00:00.000Z');
      const used = new Date('2026-11-20T08:30:00.000Z');
      const sealedSecret = 'sealed-totp-secret-never-printed';
      const codeHash = 'c0de'.repeat(16);
      await target.withStore(async (store) => {
        await store.mfa.addPendingTotp({
          factorId: unique('f'),
          userId: userId(dan),
          sealedSecret,
          createdAt: created,
        });
        await store.mfa.confirmTotp(
          userId(dan),
          (await store.mfa.factorsOf(userId(dan))).totp!.factorId,
          1,
          used,
        );
        await store.mfa.addWebAuthnCredential({
          credentialId: 'cred-dan-1',
          userId: userId(dan),
          name: 'YubiKey',
          publicKey: new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
          signCount: 3,
          transports: ['usb'],
          createdAt: created,
          lastUsedAt: used,
        });
        await store.mfa.replaceRecoveryCodes(userId(dan), [codeHash, 'f00d'.repeat(16)], created);
        await store.sessions.create(sessionFor(userId(dan)));
        await store.sessions.create(sessionFor(userId(dan)));
      });

      const shown = await gatehouse(['user', 'show', dan]);
      expect(shown).toMatchObject({ code: 0, stderr: '' });
      expect(shown.stdout).toBe(
        [
          `user "${dan}": user_id "${userId(dan)}", ${describeLevel(0)}, tenant "t1", group "g1"`,
          'second factors:',
          `  totp: confirmed ${used.toISOString()}`,
          '  webauthn: 1 credential',
          `    cred-dan-1  "YubiKey"  created ${created.toISOString()}  last used ${used.toISOString()}`,
          '  recovery codes left: 2',
          '',
        ].join('\n'),
      );
      for (const secret of [sealedSecret, codeHash, 'deadbeef', '3q2+7w'])
        expect(shown.stdout).not.toContain(secret);

      const reset = await gatehouse(['user', 'reset-mfa', dan]);
      expect(reset).toMatchObject({
        code: 0,
        stdout: `reset the second factors of "${dan}": removed the TOTP factor, 1 WebAuthn credential, 2 recovery codes\nended 2 sessions\n`,
      });
      await target.withStore(async (store) => {
        expect(await store.mfa.factorsOf(userId(dan))).toEqual({
          totp: null,
          webauthn: [],
          recoveryCodesLeft: 0,
        });
        expect(await store.sessions.listForUser(userId(dan))).toEqual([]);
        const trail = await store.audit.listForUser(userId(dan), { limit: 100 });
        expect(trail.filter((event) => event.event === 'mfa_reset')).toEqual([
          expect.objectContaining({ actor: 'administrator', outcome: 'success', username: dan }),
        ]);
        expect(trail.filter((event) => event.event === 'session_revoked')).toEqual([
          expect.objectContaining({ actor: 'administrator', reason: 'factor_changed', sessionCount: 2 }),
        ]);
      });
    });

    it('disable ends every session of the user at once; enable lets the user back in', async () => {
      const disabled = await gatehouse(['user', 'disable', carol]);
      expect(disabled).toMatchObject({ code: 0, stdout: `disabled "${carol}"; ended 3 sessions\n` });
      await target.withStore(async (store) => {
        expect((await store.users.findByUserId(userId(carol)))!.disabled).toBe(true);
        expect(await store.sessions.listForUser(userId(carol))).toEqual([]);
      });
      expect(await gatehouse(['user', 'enable', carol])).toMatchObject({
        code: 0,
        stdout: `enabled "${carol}"\n`,
      });
      await target.withStore(async (store) => {
        expect((await store.users.findByUserId(userId(carol)))!.disabled).toBe(false);
      });
    });

    it('sessions list shows each session; revoke ends one by handle, then all', async () => {
      const [first, second] = sessions[eve]!;
      const listed = await gatehouse(['sessions', 'list', '--user', eve]);
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toBe(`2 sessions of "${eve}"`);
      for (const handle of [first, second]) {
        const line = lines.find((candidate) => candidate.startsWith(`  ${handle}  `));
        expect(line).toMatch(/^ {2}\S+ {2}password {2}active {2}created \S+ {2}last seen \S+ {2}expires \S+/);
        expect(line).toContain('from 192.0.2.7  "cli-test"');
      }

      const one = await gatehouse(['sessions', 'revoke', '--user', eve, '--handle', first!]);
      expect(one).toMatchObject({ code: 0, stdout: `ended 1 session of "${eve}"\n` });
      const rest = await gatehouse(['sessions', 'revoke', '--user', eve]);
      expect(rest).toMatchObject({ code: 0, stdout: `ended 1 session of "${eve}"\n` });
      await target.withStore(async (store) => {
        expect(await store.sessions.listForUser(userId(eve))).toEqual([]);
      });
    });

    it('sessions revoke --all ends every session of every user, with one audit event', async () => {
      await target.withStore(async (store) => {
        for (const username of [bob, eve]) {
          await store.sessions.create(sessionFor(userId(username)));
          await store.sessions.create(sessionFor(userId(username)));
        }
      });
      // A usage error ends nothing.
      const both = await gatehouse(['sessions', 'revoke', '--all', '--user', eve]);
      expect(both).toMatchObject({ code: 2, stdout: '' });
      expect(both.stderr).toMatch(/^error USAGE: --all and --user are mutually exclusive\n/);
      expect(await target.withStore((store) => countRows(store, 'sessions'))).toBe(4);

      // At LOG_LEVEL=info the command logs what it ended, as the service does (one way to end).
      const all = await runGatehouse(['sessions', 'revoke', '--all'], {
        env: { ...target.env, LOG_LEVEL: 'info' },
      });
      expect(all).toMatchObject({ code: 0, stdout: 'ended 4 sessions of all users\n' });
      expect(
        all.stderr
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ).toEqual([
        expect.objectContaining({ event: 'session_ended', reason: 'administrator', userId: null, count: 4 }),
      ]);
      await target.withStore(async (store) => {
        expect(await countRows(store, 'sessions')).toBe(0);
        const { rows } = await store.client.query(
          `SELECT event, outcome, reason, actor, user_id, username, session_handle, session_count
             FROM audit_events WHERE event = 'session_revoked' AND user_id IS NULL`,
        );
        expect(rows).toEqual([
          {
            event: 'session_revoked',
            outcome: 'success',
            reason: 'administrator',
            actor: 'administrator',
            user_id: null,
            username: null,
            session_handle: null,
            session_count: 4,
          },
        ]);
      });
    });

    it('prints a stored username with invisible characters escaped (issue 14, finding 4)', async () => {
      // Made before the rule existed (straight into the store): the CLI must not show it as "admin".
      const oddity = `adm\u200bin\u202e-${unique('x')}`;
      await target.withStore((store) =>
        store.users.create(
          {
            ...EMPTY_ATTRIBUTES,
            userId: userId(oddity),
            username: oddity,
            userLevel: 16,
            tenantId: null,
            groupId: null,
            backendName: null,
            passwordHash: null,
            mustChangePassword: false,
          },
          new Date(),
        ),
      );
      const result = await gatehouse(['sessions', 'list', '--user', oddity]);
      expect(result.code).toBe(0);
      const shown = oddity.replace('\u200b', '\\u{200B}').replace('\u202e', '\\u{202E}');
      expect(result.stdout).toBe(`0 sessions of "${shown}"\n`);
      expect(result.stdout).not.toMatch(/[\u200b\u202e]/);
    });

    it('names an unknown user NOT_FOUND, exit 1', async () => {
      const result = await gatehouse(['user', 'disable', 'nobody-at-all']);
      expect(result).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'error NOT_FOUND: no user "nobody-at-all"\n',
      });
    });
  });
}
