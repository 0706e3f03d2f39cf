/**
 * The device proof in a real headless Chromium under `COOKIE_NAME=__Host-sessionid`, the name the
 * start-up warning recommends. `__Host-` requires `Path=/`, the device cookie lives on the login
 * path only: under the session cookie's own prefix Chromium refused it, so a locked-out user's
 * browser had no proof and anyone could keep the account blocked. Chromium treats http://localhost
 * as a secure context, so it keeps `Secure` and prefixed cookies from the plain-http test server.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForThisFile } from '../support/chromium.js';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

const browser = chromiumForThisFile();

for (const target of TRANSPORT_TARGETS) {
  describe(`the device cookie under __Host-sessionid in headless Chromium [${target}]`, () => {
    let server: TestServer;
    let origin: string;

    beforeAll(async () => {
      server = await startTestServer({
        store: target,
        env: { COOKIE_NAME: '__Host-sessionid', LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_S: '900' },
      });
      await seedUser(server, { username: 'amy', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      // `localhost`, not 127.0.0.1: the name Chromium treats as a secure context for cookies.
      origin = `http://localhost:${new URL(server.url).port}`;
    }, 60_000);

    afterAll(async () => {
      await server?.close();
    });

    /** POST /api/v1/login/ from the page, as a portal on the service's origin does. */
    const login = (page: Page, password: string) =>
      page.evaluate(
        async ([username, secret]) =>
          (
            await fetch('/api/v1/login/', {
              method: 'POST',
              credentials: 'same-origin',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ username, password: secret }),
            })
          ).status,
        ['amy', password] as const,
      );

    it('stores the device cookie, sends it back to the login path, and lets the user in while blocked', {
      timeout: 60_000,
    }, async () => {
      await browser.inNewContext(async (context) => {
        const page = await context.newPage();
        // A portal page on the service's origin (the API's own answers forbid scripts by CSP).
        await page.route(`${origin}/portal/`, (route) =>
          route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>portal</title>' }),
        );
        await page.goto(`${origin}/portal/`);
        expect(await login(page, PASSWORD)).toBe(200);

        const cookies = await context.cookies(`${origin}/api/v1/login/`);
        expect(cookies.find((cookie) => cookie.name === '__Host-sessionid')).toMatchObject({
          path: '/',
          secure: true,
          httpOnly: true,
        });
        expect(cookies.find((cookie) => cookie.name.endsWith('_device'))).toMatchObject({
          name: '__Secure-sessionid_device',
          path: '/api/v1/login/',
          secure: true,
          httpOnly: true,
          sameSite: 'Strict',
        });

        const sent: string[] = [];
        page.on('request', async (request) => {
          if (new URL(request.url()).pathname === '/api/v1/login/')
            sent.push((await request.allHeaders()).cookie ?? '');
        });

        // Someone else spends the account's failure budget: without a proof, even the password is 429.
        const attacker = new TestClient(server.url);
        for (let i = 0; i < 3; i++) {
          expect((await attacker.post('/api/v1/login/', { username: 'amy', password: WRONG })).status).toBe(
            401,
          );
        }
        expect((await attacker.post('/api/v1/login/', { username: 'amy', password: PASSWORD })).status).toBe(
          429,
        );

        // The user's own browser still gets in, on the proof it keeps.
        expect(await login(page, PASSWORD)).toBe(200);
        await expect.poll(() => sent.length).toBe(1);
        expect(sent[0]).toMatch(/(^|; )__Secure-sessionid_device=[^;]+/);
      });
    });
  });
}
