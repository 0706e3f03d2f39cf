/**
 * The Redis session record's `auth` fields (`as`, `am`, `at`): written with every session made
 * now, and absent from a record written before second factors, which reads as no `auth` (the
 * service then goes by the token and the login method: `sessionAuthOf`).
 */
import { describe, expect, it } from 'vitest';
import { recordOf, sessionOf } from '../../src/adapters/redis/redis-session-record.js';
import { sessionAuthOf } from '../../src/domain/session/session-auth.js';
import { contractAuth, contractSession } from '../../src/testing/stores.js';

const LAST_SEEN = '1764284400123';

describe('the Redis session record', () => {
  it('keeps `auth`: stage, methods in order, the time in ms', () => {
    const session = contractSession('u-1', {
      auth: contractAuth({ stage: 'enrolment', amr: ['pwd'], authTime: new Date(1_764_284_400_987) }),
    });
    const raw = JSON.stringify(recordOf(session));
    expect(JSON.parse(raw)).toMatchObject({ as: 'enrolment', am: ['pwd'], at: 1_764_284_400_987 });
    expect(sessionOf(session.tokenHash, raw, LAST_SEEN).auth).toEqual(session.auth);
  });

  it('writes no `auth` fields for a session without it', () => {
    const raw = JSON.stringify(recordOf(contractSession('u-1')));
    for (const field of ['as', 'am', 'at']) expect(JSON.parse(raw)).not.toHaveProperty(field);
    expect(sessionOf('h', raw, LAST_SEEN)).not.toHaveProperty('auth');
  });

  it('reads a record written before second factors (and before providers) as no `auth`', () => {
    const before = JSON.stringify({
      h: 'handle-1',
      u: 'u-1',
      m: 'password',
      c: 1_764_280_000_000,
      e: 1_764_323_200_000,
      a: '192.0.2.1',
      g: null,
      si: null,
      ss: null,
      sd: null,
    });
    const session = sessionOf('h', before, LAST_SEEN);
    expect(session).not.toHaveProperty('auth');
    expect(session.createdAt).toEqual(new Date(1_764_280_000_000));
    expect(sessionAuthOf(session, false)).toEqual({
      stage: 'full',
      amr: ['pwd'],
      authTime: new Date(1_764_280_000_000),
    });
  });

  it('reads a record with only some of the fields as no `auth`: a pending token stays pending', () => {
    const raw = JSON.stringify({
      ...recordOf(contractSession('u-1', { auth: contractAuth() })),
      at: undefined,
    });
    const session = sessionOf('h', raw, LAST_SEEN);
    expect(session).not.toHaveProperty('auth');
    expect(sessionAuthOf(session, true).stage).toBe('second_factor');
  });
});
