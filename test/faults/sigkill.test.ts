/**
 * A service process killed with SIGKILL while logins, password changes and failed attempts are in
 * flight: nothing it acknowledged is lost and nothing half-written is left. Checked on the
 * database afterwards, then a new process starts on the same schema and serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import { openTestPostgres, pgEnabled, type TestPgSqlClient } from '../support/databases.js';
import { TestClient } from '../support/test-server.js';
import { type ChildService, startService } from './support/child-service.js';
import { hasher, seedUsers, serviceDatabaseUrl } from './support/postgres.js';
import { report, sleep, waitUntil } from './support/timing.js';

const OLD = (name: string) => `old passphrase of ${name}`;
const NEW = (name: string) => `new passphrase of ${name}`;
const CHANGERS = 16;
const STAYERS = 6;
const TARGETS = 4;
const APPLICATION_NAME = 'gatehouse-faults-sigkill';

interface Changer {
  name: string;
  /** Tokens of logins with the old password (any of them must be gone once the change committed). */
  oldTokens: string[];
  changeInFlight: boolean;
  /** The rotated token, when the change's answer arrived. */
  rotated: string | null;
  newTokens: string[];
}

describe.skipIf(!pgEnabled)('SIGKILL in the middle of logins and password changes [postgres]', () => {
  let db: TestPgSqlClient;
  let service: ChildService;
  let restarted: ChildService | undefined;
  let seededAt: Date;
  let stopLoad = false;

  const changers: Changer[] = Array.from({ length: CHANGERS }, (_, i) => ({
    name: `changer${i}`,
    oldTokens: [],
    changeInFlight: false,
    rotated: null,
    newTokens: [],
  }));
  const stayerTokens = new Map<string, string[]>();
  const targets = new Map<string, { sent: number; refused: number }>();
  let changesAnswered = 0;
  /** Logins with a right password sent and not answered: their throttle places are still reserved. */
  let rightLoginsUnanswered = 0;

  /** A login with the right password, counted while unanswered. */
  async function rightLogin(client: TestClient, username: string, password: string) {
    rightLoginsUnanswered += 1;
    const response = await client.post('/api/v1/login/', { username, password });
    rightLoginsUnanswered -= 1;
    return response;
  }

  beforeAll(async () => {
    db = await openTestPostgres();
    seededAt = new Date();
    await seedUsers(
      db,
      [
        ...changers.map(({ name }) => ({ username: name, password: OLD(name) })),
        ...Array.from({ length: STAYERS }, (_, i) => ({
          username: `stayer${i}`,
          password: OLD(`stayer${i}`),
        })),
        ...Array.from({ length: TARGETS }, (_, i) => ({
          username: `target${i}`,
          password: OLD(`target${i}`),
        })),
      ],
      seededAt,
    );
    const url = new URL(serviceDatabaseUrl(db.schema));
    url.searchParams.set('application_name', APPLICATION_NAME);
    service = await startService({
      DATABASE_URL: url.toString(),
      DATABASE_POOL_SIZE: '10',
      LOGIN_MAX_FAILURES: '1000',
    });
  });

  afterAll(async () => {
    stopLoad = true;
    await service?.stop('SIGKILL');
    await restarted?.stop();
    await db?.close();
  });

  /** One changer: logs in with the old password (twice), changes it, logs in with the new one. */
  async function runChanger(changer: Changer, delayMs: number): Promise<void> {
    await sleep(delayMs);
    const first = new TestClient(service.url);
    const login = await rightLogin(first, changer.name, OLD(changer.name));
    if (login.status !== 200) return;
    changer.oldTokens.push(first.session!);
    const second = new TestClient(service.url);
    const again = await rightLogin(second, changer.name, OLD(changer.name));
    if (again.status === 200) changer.oldTokens.push(second.session!);
    changer.changeInFlight = true;
    // Logins with the old password race the change.
    const racing = Promise.allSettled(
      Array.from({ length: 2 }, async () => {
        const racer = new TestClient(service.url);
        const response = await rightLogin(racer, changer.name, OLD(changer.name));
        if (response.status === 200) changer.oldTokens.push(racer.session!);
      }),
    );
    const change = await first.post('/api/v1/password/', {
      old_password: OLD(changer.name),
      new_password: NEW(changer.name),
    });
    changer.changeInFlight = false;
    expect(change.status).toBe(200);
    changer.rotated = first.session!;
    changesAnswered += 1;
    await racing;
    while (!stopLoad) {
      const client = new TestClient(service.url);
      const response = await rightLogin(client, changer.name, NEW(changer.name));
      expect(response.status).toBe(200);
      changer.newTokens.push(client.session!);
    }
  }

  async function runStayer(name: string): Promise<void> {
    const tokens: string[] = [];
    stayerTokens.set(name, tokens);
    while (!stopLoad) {
      const client = new TestClient(service.url);
      const response = await rightLogin(client, name, OLD(name));
      expect(response.status).toBe(200);
      tokens.push(client.session!);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
    }
  }

  async function runTarget(name: string): Promise<void> {
    const counts = { sent: 0, refused: 0 };
    targets.set(name, counts);
    while (!stopLoad) {
      counts.sent += 1;
      const response = await new TestClient(service.url).post('/api/v1/login/', {
        username: name,
        password: 'not the password at all',
      });
      expect(response.status).toBe(401);
      counts.refused += 1;
    }
  }

  it('leaves no half-written rows and loses nothing it acknowledged', async () => {
    const started = performance.now();
    const load = [
      ...changers.map((changer, i) => runChanger(changer, i * 40)),
      ...Array.from({ length: STAYERS }, (_, i) => runStayer(`stayer${i}`)),
      ...Array.from({ length: TARGETS }, (_, i) => runTarget(`target${i}`)),
    ].map((work) =>
      work.catch((error: unknown) => {
        // Requests cut by the kill fail at the socket; anything else is a finding.
        if (!stopLoad) throw error;
      }),
    );
    // Kill once a third of the password changes were answered, while others are in flight.
    await waitUntil(
      () => changesAnswered >= CHANGERS / 3 && changers.some((changer) => changer.changeInFlight),
      { timeoutMs: 30_000, intervalMs: 5, what: 'password changes in flight' },
    );
    const inFlight = changers.filter((changer) => changer.changeInFlight).length;
    stopLoad = true;
    // Counted before the kill: a login answered after this moment released its place in time.
    // A password change checks the old password under the same throttle.
    const reservedAtKill = rightLoginsUnanswered + inFlight;
    process.kill(service.pid, 'SIGKILL');
    await service.exited;
    await Promise.all(load);
    report(
      `SIGKILL after ${Math.round(performance.now() - started)} ms of load: ${changesAnswered} password changes ` +
        `answered, ${inFlight} in flight; ${[...stayerTokens.values()].flat().length} stayer logins, ` +
        `${[...targets.values()].reduce((sum, t) => sum + t.sent, 0)} failed attempts sent`,
    );

    // PostgreSQL ends the killed process's connections (rolling back what they had open).
    await waitUntil(
      async () => {
        const { rows } = await db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
          [APPLICATION_NAME],
        );
        return rows[0]!.n === 0;
      },
      { timeoutMs: 10_000, what: 'the killed connections to end' },
    );

    // 1. Every session belongs to an existing user.
    const orphans = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.user_id = s.user_id)',
    );
    expect(orphans.rows[0]!.n).toBe(0);

    // 2. Password changes are all or nothing.
    const sessionsOf = async (userId: string) =>
      new Set(
        (
          await db.query<{ token_hash: string }>('SELECT token_hash FROM sessions WHERE user_id = $1', [
            userId,
          ])
        ).rows.map((row) => row.token_hash),
      );
    let committed = 0;
    for (const changer of changers) {
      const { rows } = await db.query<{ password_hash: string; password_changed_at: Date }>(
        'SELECT password_hash, password_changed_at FROM users WHERE user_id = $1',
        [`u-${changer.name}`],
      );
      const user = rows[0]!;
      const isNew = await hasher.verify(user.password_hash, NEW(changer.name));
      const isOld = await hasher.verify(user.password_hash, OLD(changer.name));
      expect(isNew !== isOld, `${changer.name}: exactly one password works`).toBe(true);
      const alive = await sessionsOf(`u-${changer.name}`);
      if (isNew) {
        committed += 1;
        expect(user.password_changed_at.getTime()).toBeGreaterThan(seededAt.getTime());
        // No session from before the change survives; the rotated one and later logins do.
        for (const token of changer.oldTokens) expect(alive.has(hashSessionToken(token))).toBe(false);
        if (changer.rotated) expect(alive.has(hashSessionToken(changer.rotated))).toBe(true);
        for (const token of changer.newTokens) expect(alive.has(hashSessionToken(token))).toBe(true);
        const early = await db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM sessions WHERE user_id = $1 AND created_at < $2',
          [`u-${changer.name}`, user.password_changed_at],
        );
        expect(early.rows[0]!.n).toBe(0);
      } else {
        // Not committed: the change was never acknowledged and nothing of it is there.
        expect(changer.rotated).toBeNull();
        expect(user.password_changed_at.getTime()).toBe(seededAt.getTime());
        for (const token of changer.oldTokens) expect(alive.has(hashSessionToken(token))).toBe(true);
      }
    }
    expect(committed).toBeGreaterThanOrEqual(changesAnswered);

    // 3. Every acknowledged login of a user who changed nothing is there.
    for (const [name, tokens] of stayerTokens) {
      const alive = await sessionsOf(`u-${name}`);
      for (const token of tokens) expect(alive.has(hashSessionToken(token)), name).toBe(true);
    }

    // 4. Throttle counters: at least every failure answered, at most every failure sent. An
    //    attempt reserves its place before the password is checked and a success gives the
    //    address's place back, so the right logins and password changes cut by the kill keep theirs until the window
    //    ends (a bounded leak, docs/security.md): the address may hold those too.
    let sent = 0;
    let refused = 0;
    for (const [name, counts] of targets) {
      const { rows } = await db.query<{ failures: number }>(
        'SELECT failures FROM login_throttle WHERE key = $1',
        [`user:${name}`],
      );
      const failures = rows[0]?.failures ?? 0;
      expect(failures).toBeGreaterThanOrEqual(counts.refused);
      expect(failures).toBeLessThanOrEqual(counts.sent);
      sent += counts.sent;
      refused += counts.refused;
    }
    const address = await db.query<{ failures: number }>(
      `SELECT sum(failures)::int AS failures FROM login_throttle WHERE key LIKE 'addr:%'`,
    );
    expect(address.rows[0]!.failures).toBeGreaterThanOrEqual(refused);
    expect(address.rows[0]!.failures).toBeLessThanOrEqual(sent + reservedAtKill);
    const malformed = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM login_throttle WHERE failures < 1 OR window_start > updated_at',
    );
    expect(malformed.rows[0]!.n).toBe(0);
  });

  it('starts again on the same database and serves at once', async () => {
    // The same deployment's settings (its throttle budgets) as before the crash.
    restarted = await startService({
      DATABASE_URL: serviceDatabaseUrl(db.schema),
      LOGIN_MAX_FAILURES: '1000',
    });
    const client = new TestClient(restarted.url);
    expect((await client.get('/readyz')).status).toBe(200);
    const changer = changers.find((candidate) => candidate.rotated)!;
    expect(
      (await client.post('/api/v1/login/', { username: changer.name, password: NEW(changer.name) })).status,
    ).toBe(200);
    const [name, tokens] = [...stayerTokens].find(([, list]) => list.length > 0)!;
    const survivor = new TestClient(restarted.url);
    expect(
      (await survivor.get('/api/v1/session/', { cookie: `sessionid=${tokens[0]}` })).body?.profile?.username,
    ).toBe(name);
  });
});
