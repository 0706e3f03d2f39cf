/**
 * Contract 3b through real nginx and Caddy, configured as docs/gateways.md shows: the step-up
 * page (`/billing/`, a check with `mfa=1&max_age=300`) lets through only a session made with two
 * factors in the last five minutes; a pending session passes nowhere; the application reads how
 * and when the session was made from Gatehouse, never from the client.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/user/user.js';
import { type Gateway, type GatewayKind, startGateway } from '../support/gateways.js';
import { issuePendingSession, issueSession } from '../support/issued-sessions.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const GATEWAYS: readonly GatewayKind[] = ['nginx', 'caddy'];

for (const kind of GATEWAYS) {
  describe(`step-up through ${kind}`, () => {
    let gatehouse: TestServer;
    let app: Server;
    let reached = 0;
    let gateway: Gateway;
    let ann: User;

    beforeAll(async () => {
      // The in-memory session store keeps a session's facts on this branch (amr, time).
      gatehouse = await startTestServer({ store: 'memory' });
      ann = await seedUser(gatehouse, {
        username: 'ann',
        password: 'a long passphrase of hers',
        userId: 'u-ann',
      });
      app = createServer((request, response) => {
        reached += 1;
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            methods: request.headers['gatehouse-auth-methods'] ?? null,
            time: request.headers['gatehouse-auth-time'] ?? null,
          }),
        );
      });
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      gateway = await startGateway(
        kind,
        gatehouse.url,
        `http://127.0.0.1:${(app.address() as { port: number }).port}`,
      );
    });
    afterAll(async () => {
      await gateway?.close();
      await new Promise((resolve) => app?.close(resolve));
      await gatehouse?.close();
    });

    const minutesAgo = (minutes: number) => new Date(gatehouse.clock.now().getTime() - minutes * 60_000);
    const issue = (amr: string[], authTime = gatehouse.clock.now()) =>
      issueSession(gatehouse.gatehouse.container, ann, { stage: 'full', amr, authTime });
    const via = (path: string, cookie: string, headers: Record<string, string> = {}) =>
      new TestClient(gateway.url).get(path, { cookie, ...headers });

    it('lets a two-factor session of the last five minutes onto the billing page, with how and when', async () => {
      const authTime = minutesAgo(1);
      const answer = await via('/billing/invoices', (await issue(['pwd', 'otp'], authTime)).cookie, {
        'Gatehouse-Auth-Methods': 'forged',
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        methods: 'pwd,otp',
        time: String(Math.floor(authTime.getTime() / 1000)),
      });
    });

    it('stops a one-factor session, and a two-factor one from six minutes ago, at the billing page only', async () => {
      const before = reached;
      const one = await issue(['pwd']);
      expect((await via('/billing/invoices', one.cookie)).status).toBe(403);
      expect(
        (await via('/billing/invoices', (await issue(['pwd', 'otp'], minutesAgo(6))).cookie)).status,
      ).toBe(403);
      expect(reached).toBe(before);
      const elsewhere = await via('/orders', one.cookie, { Gatehouse_Auth_Methods: 'pwd,otp' });
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body.methods).toBe('pwd');
    });

    it('stops a pending session everywhere', async () => {
      const before = reached;
      const { cookie } = await issuePendingSession(gatehouse.gatehouse.container, ann);
      for (const path of ['/orders', '/billing/invoices'])
        expect((await via(path, cookie)).status, path).toBe(403);
      expect(reached).toBe(before);
    });
  });
}
