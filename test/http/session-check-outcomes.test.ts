/**
 * The outcome every session check counts (gatehouse_session_checks_total), one request kind at a
 * time: no cookie or an empty one is `missing`; junk, an unknown or ended session, or several live
 * ones is `invalid`; a session past its time-out is `expired` once (it ends then), and only when no
 * live one is beside it; a live one is `ok`, or `password_expired`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const OUTCOMES = ['ok', 'missing', 'invalid', 'expired', 'password_expired'] as const;

describe('session check outcomes', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { METRICS_ON_MAIN_PORT: 'true', SESSION_IDLE_TIMEOUT_S: '600' } });
    await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
    await seedUser(server, { username: 'bob', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
    await seedUser(server, { username: 'fresh', password: PASSWORD, mustChangePassword: true });
  });
  afterAll(() => server?.close());

  async function counts(): Promise<Record<string, number>> {
    const text = (await new TestClient(server.url).get('/metrics')).text;
    return Object.fromEntries(
      OUTCOMES.map((outcome) => {
        const match = new RegExp(
          `^gatehouse_session_checks_total\\{outcome="${outcome}"\\} (\\d+)$`,
          'm',
        ).exec(text);
        return [outcome, Number(match?.[1] ?? 0)];
      }),
    );
  }

  /** The outcome counted for one GET /api/v1/session/ sent with these session cookie values. */
  async function outcomeOf(...values: string[]): Promise<string> {
    const before = await counts();
    const headers =
      values.length > 0 ? { cookie: values.map((value) => `sessionid=${value}`).join('; ') } : undefined;
    await new TestClient(server.url).get('/api/v1/session/', headers);
    const after = await counts();
    const counted = OUTCOMES.filter((outcome) => after[outcome] !== before[outcome]);
    expect(counted.map((outcome) => after[outcome]! - before[outcome]!)).toEqual([1]);
    return counted[0]!;
  }

  async function sessionOf(username: string): Promise<string> {
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
    return client.session!;
  }

  it('no cookie, or an empty one, is missing', async () => {
    expect(await outcomeOf()).toBe('missing');
    expect(await outcomeOf('')).toBe('missing');
  });

  it('junk, an unknown session or several live ones is invalid', async () => {
    expect(await outcomeOf('not-a-token!')).toBe('invalid');
    expect(await outcomeOf('A'.repeat(43))).toBe('invalid');
    expect(await outcomeOf(await sessionOf('ann'), await sessionOf('bob'))).toBe('invalid');
  });

  it('a live session is ok, or password_expired when its credentials expired', async () => {
    expect(await outcomeOf(await sessionOf('ann'))).toBe('ok');
    const fresh = await sessionOf('fresh');
    expect(await outcomeOf(fresh)).toBe('password_expired');
    // Refused everywhere but the password change and the logout.
    const response = await new TestClient(server.url).get('/api/v1/session/', {
      cookie: `sessionid=${fresh}`,
    });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      code: 'PASSWORD_EXPIRED',
      detail: 'The password has expired. Change it before doing anything else.',
    });
  });

  it('a timed-out session is expired once, then unknown; beside a live one the live one counts', async () => {
    const idle = await sessionOf('ann');
    const idleToo = await sessionOf('ann');
    const idleThree = await sessionOf('bob');
    server.clock.advanceSeconds(601);
    const live = await sessionOf('bob');
    const liveToo = await sessionOf('ann');
    expect(await outcomeOf(idle)).toBe('expired');
    expect(await outcomeOf(idle)).toBe('invalid');
    expect(await outcomeOf(idleToo, live)).toBe('ok');
    // Two live ones beside a timed-out one: ambiguous, so invalid, not expired.
    expect(await outcomeOf(idleThree, live, liveToo)).toBe('invalid');
  });
});
