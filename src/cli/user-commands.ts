import { isConfirmed, type UserFactors } from '../domain/mfa/mfa-factor.js';
import type { RemovedFactors } from '../domain/mfa/mfa-factor-repository.port.js';
import type { User } from '../domain/user/user.js';
import { isUserLevel } from '../domain/user/user.js';
import { describeLevel } from '../domain/user/user-rules.js';
import {
  clean,
  type OptionSpec,
  parse,
  plural,
  quoted,
  unknownSubcommand,
  wholeNumber,
} from './command-line.js';
import type { Plan } from './command-plan.js';
import { UsageError } from './usage.js';

/** `gatehouse user ...` and `gatehouse sessions ...`: accounts and their sessions. */

function describeUser(user: User): string {
  const parts = [`user_id ${quoted(user.userId)}`];
  parts.push(isUserLevel(user.userLevel) ? describeLevel(user.userLevel) : `level ${user.userLevel}`);
  if (user.tenantId !== null) parts.push(`tenant ${quoted(user.tenantId)}`);
  if (user.groupId !== null) parts.push(`group ${quoted(user.groupId)}`);
  if (user.backend) parts.push(`backend ${quoted(user.backend.name)}`);
  return parts.join(', ');
}

/**
 * The user's second factors as `user show` prints them: what there is and when it was made or
 * used, never a secret (no TOTP secret, no public key, no code or its hash).
 */
function describeFactors(factors: UserFactors): string[] {
  const { totp } = factors;
  const lines = [
    `  totp: ${
      totp === null
        ? 'none'
        : isConfirmed(totp)
          ? `confirmed ${totp.confirmedAt.toISOString()}`
          : `pending (enrolment started ${totp.createdAt.toISOString()}, not confirmed)`
    }`,
    `  webauthn: ${plural(factors.webauthn.length, 'credential')}`,
  ];
  for (const credential of factors.webauthn) {
    lines.push(
      [
        `    ${clean(credential.credentialId)}`,
        quoted(credential.name),
        `created ${credential.createdAt.toISOString()}`,
        `last used ${credential.lastUsedAt?.toISOString() ?? 'never'}`,
      ].join('  '),
    );
  }
  lines.push(`  recovery codes left: ${factors.recoveryCodesLeft}`);
  return lines;
}

function describeRemoved(removed: RemovedFactors): string {
  const parts = [
    ...(removed.totp ? ['the TOTP factor'] : []),
    ...(removed.webauthn > 0 ? [plural(removed.webauthn, 'WebAuthn credential')] : []),
    ...(removed.recoveryCodes > 0 ? [plural(removed.recoveryCodes, 'recovery code')] : []),
  ];
  return parts.length === 0 ? 'it had no second factor' : `removed ${parts.join(', ')}`;
}

const USER_ADD_OPTIONS: OptionSpec = {
  level: { type: 'string' },
  tenant: { type: 'string' },
  group: { type: 'string' },
  'user-id': { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  email: { type: 'string' },
  phone: { type: 'string' },
  language: { type: 'string' },
  'language-code': { type: 'string' },
  'platform-type': { type: 'string' },
  'access-type': { type: 'string' },
  'read-only': { type: 'boolean' },
  'user-type': { type: 'string' },
  role: { type: 'string' },
  enterprise: { type: 'boolean' },
  backend: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'no-password': { type: 'boolean' },
};

function planUserAdd(args: readonly string[]): Plan {
  const p = parse(args, USER_ADD_OPTIONS, ['USERNAME']);
  const username = p.args[0]!;
  const level = wholeNumber('level', p.required('level'))!;
  const accessType = wholeNumber('access-type', p.text('access-type'));
  const withPassword = p.flag('password-stdin');
  if (withPassword === p.flag('no-password')) {
    throw new UsageError('give --password-stdin (password on standard input) or --no-password');
  }
  return {
    ...(withPassword ? { passwordFor: username } : {}),
    async run(context, password) {
      const user = await context.users.add({
        username,
        userLevel: level,
        tenantId: p.text('tenant'),
        groupId: p.text('group'),
        userId: p.text('user-id'),
        backendName: p.text('backend'),
        firstName: p.text('first-name'),
        lastName: p.text('last-name'),
        emailAddress: p.text('email'),
        phoneNumber: p.text('phone'),
        language: p.text('language'),
        languageCode: p.text('language-code'),
        platformType: p.text('platform-type'),
        accessType,
        readOnly: p.flag('read-only') ? true : null,
        userType: p.text('user-type'),
        role: p.text('role'),
        isEnterprise: p.flag('enterprise') ? true : null,
        password,
      });
      context.out(`added user ${quoted(user.username)}: ${describeUser(user)}`);
      context.out(
        password === null
          ? 'it has no password: it can only log in with single sign-on'
          : 'its password must be changed at first login',
      );
    },
  };
}

export function planUser(args: readonly string[]): Plan {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return planUserAdd(rest);
    case 'set-password': {
      const p = parse(rest, { 'password-stdin': { type: 'boolean' } }, ['USERNAME']);
      if (!p.flag('password-stdin')) throw new UsageError('--password-stdin is required');
      const username = p.args[0]!;
      return {
        passwordFor: username,
        async run(context, password) {
          const { user, sessionsEnded } = await context.users.setPassword(username, password!);
          context.out(`set the password of ${quoted(user.username)}; it must be changed at next login`);
          context.out(`ended ${plural(sessionsEnded, 'session')}`);
        },
      };
    }
    case 'expire': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const user = await context.users.expire(username);
          const at = user.credentialsExpireAt?.toISOString() ?? 'now';
          context.out(`the credentials of ${quoted(user.username)} expired at ${at}`);
        },
      };
    }
    case 'disable': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const { user, sessionsEnded } = await context.users.disable(username);
          context.out(`disabled ${quoted(user.username)}; ended ${plural(sessionsEnded, 'session')}`);
        },
      };
    }
    case 'enable': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const user = await context.users.enable(username);
          context.out(`enabled ${quoted(user.username)}`);
        },
      };
    }
    case 'reset-sso': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const { user, wasBound, sessionsEnded } = await context.users.resetSso(username);
          const ended =
            context.config.sessionStore.kind === 'memory'
              ? "its sessions made through that provider live in the service process (SESSION_STORE=memory), out of this command's reach"
              : `ended ${plural(sessionsEnded, 'session')} made through that provider`;
          context.out(
            wasBound
              ? `${quoted(user.username)} is no longer bound to a provider account; the next SSO login binds it; ${ended}`
              : `${quoted(user.username)} was not bound to a provider account`,
          );
        },
      };
    }
    case 'reset-mfa': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const { user, removed, sessionsEnded } = await context.users.resetMfa(username);
          context.out(`reset the second factors of ${quoted(user.username)}: ${describeRemoved(removed)}`);
          context.out(`ended ${plural(sessionsEnded, 'session')}`);
        },
      };
    }
    case 'show': {
      const username = parse(rest, {}, ['USERNAME']).args[0]!;
      return {
        async run(context) {
          const { user, factors } = await context.users.show(username);
          context.out(
            `user ${quoted(user.username)}: ${describeUser(user)}${user.disabled ? ', disabled' : ''}`,
          );
          context.out('second factors:');
          for (const line of describeFactors(factors)) context.out(line);
        },
      };
    }
    default:
      throw unknownSubcommand('user', sub, [
        'add',
        'set-password',
        'expire',
        'disable',
        'enable',
        'reset-sso',
        'reset-mfa',
        'show',
      ]);
  }
}

export function planSessions(args: readonly string[]): Plan {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const username = parse(rest, { user: { type: 'string' } }, []).required('user');
      return {
        async run(context) {
          const { user, sessions } = await context.users.listSessions(username, context.config.session);
          context.out(`${plural(sessions.length, 'session')} of ${quoted(user.username)}`);
          for (const session of sessions) {
            context.out(
              [
                `  ${clean(session.handle)}`,
                session.method,
                session.alive ? 'active' : 'timed-out',
                `created ${session.createdAt.toISOString()}`,
                `last seen ${session.lastSeenAt.toISOString()}`,
                `expires ${session.expiresAt.toISOString()}`,
                `from ${clean(session.clientAddress ?? '-')}`,
                session.userAgent ? quoted(session.userAgent) : '-',
              ].join('  '),
            );
          }
        },
      };
    }
    case 'revoke': {
      const p = parse(
        rest,
        { user: { type: 'string' }, handle: { type: 'string' }, all: { type: 'boolean' } },
        [],
      );
      const handle = p.text('handle');
      if (p.flag('all')) {
        if (p.text('user') !== null) throw new UsageError('--all and --user are mutually exclusive');
        if (handle !== null) throw new UsageError('--handle needs --user, not --all');
        return {
          async run(context) {
            const { sessionsEnded } = await context.users.revokeAllSessions();
            context.out(`ended ${plural(sessionsEnded, 'session')} of all users`);
          },
        };
      }
      const username = p.text('user');
      if (username === null) throw new UsageError('--user or --all is required');
      return {
        async run(context) {
          const { user, sessionsEnded } = await context.users.revokeSessions(username, handle ?? undefined);
          context.out(`ended ${plural(sessionsEnded, 'session')} of ${quoted(user.username)}`);
        },
      };
    }
    default:
      throw unknownSubcommand('sessions', sub, ['list', 'revoke']);
  }
}
