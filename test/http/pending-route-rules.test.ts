/**
 * The session rules of route.ts that admit a pending session (contract 3b), proved on a route
 * table of their own (no MFA route exists in this table's place yet), served by both transports
 * through HttpCore as the service's own table is: each rule admits exactly the sessions it names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCore } from '../../src/adapters/http/http-core.js';
import { buildOpenApiDocument } from '../../src/adapters/http/openapi/document.js';
import { defineRoute, type Route, type SessionRule } from '../../src/adapters/http/route.js';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { createLogger } from '../../src/adapters/logging/logger.js';
import { createHttpApp } from '../../src/boot/http-transport.js';
import { TOKENS } from '../../src/boot/tokens.js';
import type { User } from '../../src/domain/user/user.js';
import { expectProblem } from '../support/expect-problem.js';
import { issuePendingSession, issueSession } from '../support/issued-sessions.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const RULES: Record<string, SessionRule> = {
  '/t/live/': 'live',
  '/t/expired-allowed/': 'live-expired-allowed',
  '/t/verify/': 'pending-second-factor',
  '/t/enrol/': 'live-or-enrolment',
};

function testRoutes(): Route[] {
  return Object.entries(RULES).map(([path, rule]) =>
    defineRoute({
      method: 'POST',
      path,
      session: rule,
      openapi: {
        operationId: `test${rule}`,
        tag: 'session',
        summary: rule,
        responses: [{ status: 200, description: 'Admitted.' }],
        errors: [],
      },
      handle: ({ reply, session }) => {
        reply.json({ stage: session?.auth.stage });
      },
    }),
  );
}

type Kind = 'full' | 'second_factor' | 'enrolment';
const OK = 200;
/** What each rule answers each kind of session: a status, or a problem's code. */
const EXPECTED: Record<string, Record<Kind, number | string>> = {
  live: { full: OK, second_factor: 'MFA_REQUIRED', enrolment: 'MFA_REQUIRED' },
  'live-expired-allowed': { full: OK, second_factor: 'MFA_REQUIRED', enrolment: 'MFA_REQUIRED' },
  'pending-second-factor': { full: 'MFA_NOT_APPLICABLE', second_factor: OK, enrolment: 'MFA_REQUIRED' },
  'live-or-enrolment': { full: OK, second_factor: 'MFA_REQUIRED', enrolment: OK },
  optional: { full: OK, second_factor: OK, enrolment: OK },
  none: { full: OK, second_factor: OK, enrolment: OK },
};
/** The same, for a user whose password expired: full sessions are held to the password change. */
const EXPECTED_EXPIRED: Record<string, Record<Kind, number | string>> = {
  live: { full: 'PASSWORD_EXPIRED', second_factor: 'MFA_REQUIRED', enrolment: 'MFA_REQUIRED' },
  'live-expired-allowed': { full: OK, second_factor: 'MFA_REQUIRED', enrolment: 'MFA_REQUIRED' },
  'pending-second-factor': { full: 'MFA_NOT_APPLICABLE', second_factor: OK, enrolment: 'MFA_REQUIRED' },
  'live-or-enrolment': { full: 'PASSWORD_EXPIRED', second_factor: 'MFA_REQUIRED', enrolment: OK },
};

for (const transport of ['koa', 'fastify'] as const) {
  describe(`the pending session rules on a test route table [${transport}]`, () => {
    let server: TestServer;
    let running: RunningServer;
    let ann: User;
    let bob: User;

    beforeAll(async () => {
      // The in-memory session store keeps a session's facts (stage, amr, time) on this branch;
      // the SQL and Redis stores learn to keep them in their own change (a lost stage fails closed
      // to `second_factor`, which the enrolment rows here would notice).
      server = await startTestServer({ store: 'memory' });
      ann = await seedUser(server, { username: 'ann', password: 'a long passphrase of hers' });
      bob = await seedUser(server, {
        username: 'bob',
        password: 'a long passphrase of his',
        mustChangePassword: true,
      });
      const core = new HttpCore({
        logger: createLogger('silent'),
        trustedOrigins: [],
        routes: testRoutes(),
        authenticator: server.gatehouse.container.get(TOKENS.SessionAuthenticator),
        cookieName: 'sessionid',
      });
      running = await listen(await createHttpApp(transport, core, { trustedProxyHops: 0 }), 0, '127.0.0.1');
    });
    afterAll(async () => {
      await running?.close(1000);
      await server?.close();
    });

    const session = (user: User, kind: Kind) =>
      kind === 'full'
        ? issueSession(server.gatehouse.container, user, { stage: 'full', amr: ['pwd'] })
        : issuePendingSession(server.gatehouse.container, user, kind);

    async function expectAnswer(cookie: string, path: string, want: number | string) {
      const answer = await new TestClient(running.url).request('POST', path, { headers: { cookie } });
      if (typeof want === 'number') {
        expect(answer.status, path).toBe(want);
      } else {
        expectProblem(answer, 403, want);
      }
      return answer;
    }

    it('admits to each rule exactly the sessions it names', async () => {
      for (const kind of ['full', 'second_factor', 'enrolment'] as const) {
        const { cookie } = await session(ann, kind);
        for (const [path, rule] of Object.entries(RULES)) {
          const answer = await expectAnswer(cookie, path, EXPECTED[rule]![kind]);
          if (answer.status === 200) expect(answer.body).toEqual({ stage: kind });
        }
      }
    });

    it('holds only full sessions to an expired password: a pending one finishes its login first', async () => {
      for (const kind of ['full', 'second_factor', 'enrolment'] as const) {
        const { cookie } = await session(bob, kind);
        for (const [path, rule] of Object.entries(RULES))
          await expectAnswer(cookie, path, EXPECTED_EXPIRED[rule]![kind]);
      }
    });

    it('answers 401 NOT_AUTHENTICATED without a session under every guarded rule', async () => {
      for (const path of Object.keys(RULES)) {
        const answer = await new TestClient(running.url).request('POST', path);
        expectProblem(answer, 401, 'NOT_AUTHENTICATED');
      }
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the document, read field by field
type Json = Record<string, any>;

describe('the OpenAPI document of the pending session rules', () => {
  const document = buildOpenApiDocument({
    routes: testRoutes(),
    cookieName: 'sessionid',
    version: '0',
  }) as Json;
  const codesOf = (path: string): string[] =>
    Object.values(document.paths[path].post.responses as Json).flatMap(
      (response) => response.content?.['application/problem+json']?.schema.properties.code.enum ?? [],
    );

  it('states the cookie as required and each rule’s refusals', () => {
    for (const path of Object.keys(RULES))
      expect(document.paths[path].post.security, path).toEqual([{ sessionCookie: [] }]);
    expect(codesOf('/t/verify/')).toEqual(
      expect.arrayContaining(['NOT_AUTHENTICATED', 'MFA_REQUIRED', 'MFA_NOT_APPLICABLE']),
    );
    expect(codesOf('/t/verify/')).not.toContain('PASSWORD_EXPIRED');
    expect(codesOf('/t/enrol/')).toEqual(
      expect.arrayContaining(['NOT_AUTHENTICATED', 'MFA_REQUIRED', 'PASSWORD_EXPIRED']),
    );
    expect(codesOf('/t/enrol/')).not.toContain('MFA_NOT_APPLICABLE');
    expect(codesOf('/t/live/')).toEqual(expect.arrayContaining(['MFA_REQUIRED', 'PASSWORD_EXPIRED']));
    expect(codesOf('/t/expired-allowed/')).toContain('MFA_REQUIRED');
    expect(codesOf('/t/expired-allowed/')).not.toContain('PASSWORD_EXPIRED');
  });
});
