/**
 * gatehouse-client's session check against every answer a Gatehouse could give, from a scripted
 * stand-in on a real socket that records what it was sent: only the session cookie goes to
 * Gatehouse (never the application's other cookies), and a malformed 204, a 503, a redirect or an
 * answer slower than the time-out count as unavailable, never as a user or as "no session".
 * The time-outs are ordered by the event loop's timers (the stand-in answers on a timer far past
 * the time-out), never measured by the clock.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GATEHOUSE_USER_LEVELS } from '../../src/client/gatehouse-user.js';
import { createSessionCheck, type GatehouseUser } from '../../src/client/index.js';
import { ALL_USER_LEVELS } from '../../src/domain/user/user.js';

const TOKEN = 'B'.repeat(43);

let server: Server;
let url: string;
let seen: Array<{ url: string; headers: IncomingHttpHeaders }>;
let answer: (response: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    answer(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  seen = [];
  answer = (response) => response.writeHead(204).end();
});

/** Answers 204 with these identity headers. */
function identity(headers: Record<string, string>) {
  answer = (response) => response.writeHead(204, headers).end();
}

const check = (cookie: string | undefined, options: { cookieName?: string; timeoutMs?: number } = {}) =>
  createSessionCheck({ url, ...options })(cookie);

const FULL = {
  'gatehouse-user-id': 'u-1',
  'gatehouse-username': 'zo%C3%AB',
  'gatehouse-user-level': '12',
  'gatehouse-tenant-id': 't%201',
  'gatehouse-group-id': 'g1',
};

describe('createSessionCheck: what it sends', () => {
  it("sends the session cookie's pairs only, every value of that name, never the app's other cookies", async () => {
    identity(FULL);
    await check(`theme=dark; sessionid=${TOKEN};csrf=x;  sessionid=second ; xsessionid=evil; sessionidx=1`);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.cookie).toBe(`sessionid=${TOKEN}; sessionid=second`);
    expect(seen[0]!.headers.accept).toBe('application/json');
    expect(seen[0]!.url).toBe('/api/v1/session/check/');
  });

  it('uses the configured cookie name', async () => {
    identity(FULL);
    await check(`sessionid=other; portal_session=${TOKEN}`, { cookieName: 'portal_session' });
    expect(seen[0]!.headers.cookie).toBe(`portal_session=${TOKEN}`);
  });

  it('asks nothing without the session cookie', async () => {
    expect(await check(undefined)).toEqual({ status: 'none' });
    expect(await check('theme=dark; xsessionid=1')).toEqual({ status: 'none' });
    expect(seen).toEqual([]);
  });

  it('asks below a base URL with a path, with or without its trailing slash', async () => {
    identity(FULL);
    for (const base of [`${url}/gh`, `${url}/gh/`]) {
      await createSessionCheck({ url: base })(`sessionid=${TOKEN}`);
    }
    expect(seen.map((request) => request.url)).toEqual([
      '/gh/api/v1/session/check/',
      '/gh/api/v1/session/check/',
    ]);
  });
});

describe('createSessionCheck: what it makes of the answer', () => {
  const live = (user: GatehouseUser) => ({ status: 'live', user });

  it('a 204 with identity headers is the user, percent-decoded, ids it lacks left out', async () => {
    identity(FULL);
    expect(await check(`sessionid=${TOKEN}`)).toEqual(
      live({ userId: 'u-1', username: 'zoë', userLevel: 12, tenantId: 't 1', groupId: 'g1' }),
    );
    identity({ 'gatehouse-user-id': 'u%2541', 'gatehouse-username': 'ann', 'gatehouse-user-level': '0' });
    expect(await check(`sessionid=${TOKEN}`)).toEqual(
      live({ userId: 'u%41', username: 'ann', userLevel: 0 }),
    );
  });

  it("takes each of the five user levels of the interface, and only those (the domain's own list)", async () => {
    expect(GATEHOUSE_USER_LEVELS).toEqual(ALL_USER_LEVELS);
    for (const level of ALL_USER_LEVELS) {
      identity({ ...FULL, 'gatehouse-user-level': String(level) });
      expect(await check(`sessionid=${TOKEN}`)).toMatchObject({ status: 'live', user: { userLevel: level } });
    }
  });

  it('a 200 with identity headers is the user too', async () => {
    answer = (response) => response.writeHead(200, FULL).end();
    expect(await check(`sessionid=${TOKEN}`)).toEqual(
      live({ userId: 'u-1', username: 'zoë', userLevel: 12, tenantId: 't 1', groupId: 'g1' }),
    );
  });

  it.each([
    ['no user id', { ...FULL, 'gatehouse-user-id': '' }],
    ['no username', { ...FULL, 'gatehouse-username': '' }],
    ['a level that is not a number', { ...FULL, 'gatehouse-user-level': 'admin' }],
    ['a level that is not whole', { ...FULL, 'gatehouse-user-level': '1.5' }],
    ['a level with a letter after its digit', { ...FULL, 'gatehouse-user-level': '1a' }],
    // Only the five levels of the interface: a number between them, above them or spelt
    // otherwise is no level an application's checks were written for.
    ['level 2, between two levels', { ...FULL, 'gatehouse-user-level': '2' }],
    ['level 3', { ...FULL, 'gatehouse-user-level': '3' }],
    ['level 17, above the system admin', { ...FULL, 'gatehouse-user-level': '17' }],
    ['level 20', { ...FULL, 'gatehouse-user-level': '20' }],
    ['level 160', { ...FULL, 'gatehouse-user-level': '160' }],
    ['level 999', { ...FULL, 'gatehouse-user-level': '999' }],
    ['a level with a leading zero', { ...FULL, 'gatehouse-user-level': '08' }],
    ['a signed level', { ...FULL, 'gatehouse-user-level': '+4' }],
    ['a negative level', { ...FULL, 'gatehouse-user-level': '-4' }],
    ['a user id that is not percent-encoding', { ...FULL, 'gatehouse-user-id': 'u%E0%A4%A' }],
    ['a username that is not percent-encoding', { ...FULL, 'gatehouse-username': '%' }],
    ['a tenant that is not percent-encoding', { ...FULL, 'gatehouse-tenant-id': '%zz' }],
    ['a group that is not percent-encoding', { ...FULL, 'gatehouse-group-id': '%' }],
  ])('a 204 with %s is unavailable, never a user', async (_what, headers) => {
    identity(headers);
    expect(await check(`sessionid=${TOKEN}`)).toEqual({ status: 'unavailable' });
  });

  it.each([
    [401, { status: 'none' }],
    [403, { status: 'expired' }],
    [503, { status: 'unavailable' }],
    [500, { status: 'unavailable' }],
    [200, { status: 'unavailable' }],
    [302, { status: 'unavailable' }],
  ])('answers %i as %j', async (status, expected) => {
    answer = (response) =>
      response.writeHead(status, status === 302 ? { location: `${url}/elsewhere` } : {}).end('{"code":"X"}');
    expect(await check(`sessionid=${TOKEN}`)).toEqual(expected);
    // A redirect is not followed.
    expect(seen).toHaveLength(1);
  });

  it('counts a refused connection as unavailable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await createSessionCheck({ url: `http://127.0.0.1:${port}` })(`sessionid=${TOKEN}`)).toEqual({
      status: 'unavailable',
    });
  });
});

describe('createSessionCheck: its time-out', () => {
  /** The stand-in answers a live session only after `ms`, on a timer of this same event loop. */
  function answerAfter(ms: number) {
    answer = (response) => {
      const timer = setTimeout(() => response.writeHead(204, FULL).end(), ms);
      response.on('close', () => clearTimeout(timer));
    };
  }

  it('gives up at timeoutMs: an answer due later never counts', async () => {
    answerAfter(1_500);
    expect(await check(`sessionid=${TOKEN}`, { timeoutMs: 50 })).toEqual({ status: 'unavailable' });
  });

  it('waits 2 s by default: an answer due sooner counts', async () => {
    answerAfter(300);
    expect(await check(`sessionid=${TOKEN}`)).toMatchObject({ status: 'live' });
  });
});
