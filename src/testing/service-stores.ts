/**
 * The cases of a session store that only a running service shows, for a team that plugs its own
 * store in with SESSION_STORE_MODULE: the store's outage reaches clients as 503 with Retry-After
 * (never a 500, never a 401 that logs a portal's user out), and the `gatehouse` command ends the
 * sessions the service made (or refuses, saying why; never "ended 0 sessions"). The suite talks
 * HTTP to the service and runs the command through the functions it is given: it needs neither.
 *
 *   serviceStoreContract({
 *     name: 'dynamodb',
 *     sessionStore: 'module',
 *     commands: 'reach',
 *     start: async () => ({ url, user: { username, password }, gatehouse: (args, input) => run(args, input) }),
 *     outage: { begin: () => blockTheTable(), end: () => unblockTheTable() },
 *   });
 *
 * Cases run in the order written, on one service; the outage cases come before the password is
 * set again, which is last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A Gatehouse that runs with the store under test, and the way to reach it. */
export interface ServiceUnderTest {
  /** Its base URL (`http://127.0.0.1:8080`). */
  url: string;
  /** Runs `gatehouse ARGS...` with the service's configuration; `input` is its standard input. */
  gatehouse(args: readonly string[], input?: string): Promise<CommandResult>;
  /** A user who may log in with this password and need not change it. */
  user: { username: string; password: string };
  close?(): Promise<void>;
}

export interface ServiceStoreContractOptions {
  name: string;
  /** Starts the service (once for the suite) with the store under test. */
  start(): Promise<ServiceUnderTest>;
  /** What `/readyz` names as `session_store` (`module` for SESSION_STORE_MODULE). */
  sessionStore: string;
  /**
   * `reach`: the command ends the service's sessions. `refuse`: the store lives inside the
   * service's process (memory), so the session commands refuse, non-zero, and end nothing.
   */
  commands: 'reach' | 'refuse';
  /**
   * Makes the store stop answering, then answer again. Without it, the outage cases are not
   * registered (not skipped), and the suite's name says so.
   */
  outage?: { begin(): Promise<void>; end(): Promise<void> };
  /** The store offers `isReady` (an optional capability): `/readyz` is then 503 during an outage. */
  readiness: boolean;
}

/**
 * A case may start several command processes, each opening the store (and, during an outage,
 * waiting for the store's own time-out before it fails): minutes on a busy machine, not seconds.
 */
const CASE_TIMEOUT_MS = 120_000;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { text };
  }
  return { status: response.status, headers: response.headers, body };
}

/** The session routes and the service's answers to them, as a portal meets them. */
function client(service: ServiceUnderTest) {
  const json = { 'content-type': 'application/json' };
  return {
    readyz: () => call(`${service.url}/readyz`),
    login: (password = service.user.password) =>
      call(`${service.url}/api/v1/login/`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ username: service.user.username, password }),
      }),
    session: (cookie: string) => call(`${service.url}/api/v1/session/`, { headers: { cookie } }),
    check: (cookie: string) => call(`${service.url}/api/v1/session/check/`, { headers: { cookie } }),
    sessions: (cookie: string) => call(`${service.url}/api/v1/sessions/`, { headers: { cookie } }),
  };
}

/** The `name=value` of the session cookie a login answer sets. */
function cookieOf(answer: Answer): string {
  const header = answer.headers.get('set-cookie');
  if (answer.status !== 200 || !header) {
    throw new Error(`the login failed (${answer.status} ${JSON.stringify(answer.body)})`);
  }
  return header.split(';')[0]!;
}

/** A 503 problem the client can wait out: SERVICE_UNAVAILABLE with a whole-second Retry-After. */
function expectUnavailable(answer: Answer, what: string): void {
  expect({ what, status: answer.status, code: answer.body.code }).toEqual({
    what,
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
  });
  expect(answer.headers.get('retry-after'), what).toMatch(/^\d+$/);
}

function suiteName(options: ServiceStoreContractOptions): string {
  const left = options.outage ? '' : ' (no outage cases: no `outage` given)';
  return `the service with the session store ${options.name}${left}`;
}

/** The cases of a store in a running service: readiness, the command, and outages when given. */
export function serviceStoreContract(options: ServiceStoreContractOptions): void {
  describe(suiteName(options), { timeout: CASE_TIMEOUT_MS }, () => {
    let service: ServiceUnderTest;
    let http: ReturnType<typeof client>;
    let username: string;

    beforeAll(async () => {
      service = await options.start();
      http = client(service);
      username = service.user.username;
    });
    afterAll(async () => {
      await options.outage?.end();
      await service?.close?.();
    });

    it(`is ready, and /readyz names its session store (${options.sessionStore})`, async () => {
      const answer = await http.readyz();
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 200,
        body: { status: 'ready', session_store: options.sessionStore },
      });
    });

    if (options.commands === 'reach') {
      it('lists with `gatehouse sessions list` a session made through the service, and ends it with `sessions revoke`', async () => {
        const cookie = cookieOf(await http.login());
        const [own] = (await http.sessions(cookie)).body.sessions as Array<{ handle: string }>;
        const listed = await service.gatehouse(['sessions', 'list', '--user', username]);
        expect(listed).toMatchObject({ code: 0 });
        expect(listed.stdout).toContain(own!.handle);

        const revoked = await service.gatehouse([
          'sessions',
          'revoke',
          '--user',
          username,
          '--handle',
          own!.handle,
        ]);
        expect(revoked).toMatchObject({ code: 0 });
        expect(revoked.stdout).toMatch(/^ended 1 session of /);
        expect((await http.session(cookie)).status).toBe(401);
      });

      it('ends the sessions of a user disabled with `gatehouse user disable`', async () => {
        const cookie = cookieOf(await http.login());
        const disabled = await service.gatehouse(['user', 'disable', username]);
        try {
          expect(disabled).toMatchObject({ code: 0 });
          expect(disabled.stdout).toMatch(/; ended 1 session\n$/);
          expect((await http.session(cookie)).status).toBe(401);
        } finally {
          await service.gatehouse(['user', 'enable', username]);
        }
      });
    } else {
      it('refuses the session commands, non-zero, and the session made through the service lives on', async () => {
        const cookie = cookieOf(await http.login());
        for (const [args, input] of [
          [['sessions', 'list', '--user', username]],
          [['sessions', 'revoke', '--user', username]],
          [['sessions', 'revoke', '--all']],
          [['user', 'disable', username]],
          [['user', 'set-password', username, '--password-stdin'], 'a new and long passphrase\n'],
        ] as Array<[string[], string?]>) {
          const result = await service.gatehouse(args, input);
          expect({ args, code: result.code === 0 ? 0 : 'non-zero' }).toEqual({ args, code: 'non-zero' });
          expect(result.stdout).not.toMatch(/ended|session/);
          expect(result.stderr).not.toBe('');
        }
        expect((await http.session(cookie)).status).toBe(200);
      });
    }

    const outage = options.outage;
    if (outage) {
      it('answers 503 with Retry-After on the session routes while the store is down, and the session outlives the outage', async () => {
        const cookie = cookieOf(await http.login());
        await outage.begin();
        try {
          expectUnavailable(await http.session(cookie), 'GET /api/v1/session/');
          expectUnavailable(await http.check(cookie), 'GET /api/v1/session/check/');
          expectUnavailable(await http.sessions(cookie), 'GET /api/v1/sessions/');
          expectUnavailable(await http.login(), 'POST /api/v1/login/');
          if (options.readiness) {
            const readyz = await http.readyz();
            expect({ status: readyz.status, body: readyz.body }).toEqual({
              status: 503,
              body: { status: 'unavailable', session_store: options.sessionStore },
            });
          }
        } finally {
          await outage.end();
        }
        expect((await http.session(cookie)).status).toBe(200);
      });

      if (options.commands === 'reach') {
        it('fails the session commands loudly while the store is down (SERVICE_UNAVAILABLE, non-zero), writing nothing', async () => {
          await outage.begin();
          try {
            for (const [args, input] of [
              [['sessions', 'list', '--user', username]],
              [['sessions', 'revoke', '--user', username]],
              [['user', 'disable', username]],
              [
                ['user', 'set-password', username, '--password-stdin'],
                'another long and private passphrase\n',
              ],
            ] as Array<[string[], string?]>) {
              const result = await service.gatehouse(args, input);
              expect({ args, code: result.code, stdout: result.stdout }).toEqual({
                args,
                code: 1,
                stdout: '',
              });
              expect(result.stderr).toMatch(/^error SERVICE_UNAVAILABLE: /m);
            }
          } finally {
            await outage.end();
          }
          // Neither the user's state nor the password changed: the user logs in as before.
          cookieOf(await http.login());
        });
      }
    }

    if (options.commands === 'reach') {
      it('ends the sessions of a user given a new password with `gatehouse user set-password`', async () => {
        const cookie = cookieOf(await http.login());
        const newPassword = `${service.user.password} and more`;
        const result = await service.gatehouse(
          ['user', 'set-password', username, '--password-stdin'],
          `${newPassword}\n`,
        );
        expect(result).toMatchObject({ code: 0 });
        // This session, and any an earlier case left.
        expect(result.stdout).toMatch(/\nended [1-9]\d* sessions?\n$/);
        expect((await http.session(cookie)).status).toBe(401);
      });
    }
  });
}
