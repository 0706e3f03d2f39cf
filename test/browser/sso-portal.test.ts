/**
 * The `npm run dev:sso` playground in a real headless Chromium: the demo portal runs step 1 in the
 * browser, the user signs in on the OpenID provider's own login page, the portal finishes through
 * `POST /api/v1/openid/login/` and shows ids and profile; logout ends the session.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Playground, startPlayground } from '../../scripts/dev-sso/playground.js';
import { launchChromium } from '../support/chromium.js';

// One browser for the file (its launch is the slow part); each test has a context of its own.
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

// The browser flow on each transport that can serve the API (issue 12).
for (const transport of ['koa', 'fastify'] as const) {
  describe(`SSO playground portal in headless Chromium [${transport === 'koa' ? 'pglite' : 'fastify'}]`, () => {
    let playground: Playground;

    beforeAll(async () => {
      playground = await startPlayground({
        ports: 0,
        logLevel: 'silent',
        env: { HTTP_TRANSPORT: transport },
      });
    }, 60_000);

    afterAll(async () => {
      await playground?.close();
    });

    /** GET /api/v1/session/ from the page, with the browser's own cookies, through the portal. */
    const sessionStatus = (page: Page) =>
      page.evaluate(async () => (await fetch('/api/v1/session/', { credentials: 'same-origin' })).status);

    it('signs in at the provider, shows ids and profile, then logs out', { timeout: 60_000 }, async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      try {
        await page.goto(playground.portalUrl, { waitUntil: 'domcontentloaded' });
        await page.waitForSelector('body[data-ready="true"]');
        await expect.poll(() => page.textContent('#status')).toBe('Not signed in.');

        // Step 1: the portal sends the browser to the provider's authorization endpoint.
        const authorizationRequests: URL[] = [];
        page.on('request', (request) => {
          const url = new URL(request.url());
          if (url.origin === playground.providerIssuer && url.pathname === '/auth')
            authorizationRequests.push(url);
        });
        await page.click('#signin');
        await page.waitForURL((url) => url.href.startsWith(`${playground.providerIssuer}/interaction/`), {
          waitUntil: 'domcontentloaded',
        });
        const authorization = authorizationRequests[0]!.searchParams;
        expect(Object.fromEntries(authorization)).toMatchObject({
          client_id: 'gatehouse',
          response_type: 'code',
          redirect_uri: playground.redirectUri,
          scope: 'openid profile offline_access',
          code_challenge_method: 'S256',
          code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        });

        // The provider's own login page (any password for an existing account id).
        await page.fill('input[name="login"]', 'gina');
        await page.fill('input[name="password"]', 'any password at all');
        await page.click('button[type="submit"]');

        // offline_access: the provider asks for consent once.
        await page.waitForURL(
          (url) =>
            url.href.startsWith(`${playground.portalUrl}/`) || url.pathname.startsWith('/interaction/'),
          { waitUntil: 'domcontentloaded' },
        );
        if (page.url().startsWith(playground.providerIssuer)) {
          await page.waitForSelector('input[name="prompt"][value="consent"]', { state: 'attached' });
          await page.click('button[type="submit"]');
        }

        // Step 2 through Gatehouse; the portal shows what it answered.
        await page.waitForURL(`${playground.portalUrl}/`, { waitUntil: 'domcontentloaded' });
        await page.waitForSelector('body[data-ready="true"]');
        expect(await page.textContent('#error')).toBe('');
        expect(await page.textContent('#status')).toBe('Signed in through single sign-on.');
        const ids = JSON.parse((await page.textContent('#ids')) ?? 'null');
        const profile = JSON.parse((await page.textContent('#profile')) ?? 'null');
        expect(ids).toStrictEqual({ tenant_id: 't1', group_id: 'g1' });
        expect(profile).toMatchObject({ username: 'gina', user_level: 8, is_first_login: true });

        // The session cookie is HttpOnly: invisible to the page, yet sent by the browser.
        const cookies = await context.cookies(playground.portalUrl);
        const session = cookies.find((cookie) => cookie.name === 'sessionid');
        expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
        // (`document` exists in the page; this file is compiled without the DOM library.)
        expect(await page.evaluate('document.cookie')).not.toContain('sessionid');
        expect(await sessionStatus(page)).toBe(200);

        await page.click('#logout');
        await expect.poll(() => page.textContent('#status')).toMatch(/^Signed out/);
        expect(await page.textContent('#error')).toBe('');
        expect(await sessionStatus(page)).toBe(401);
        expect((await context.cookies(playground.portalUrl)).map((cookie) => cookie.name)).not.toContain(
          'sessionid',
        );

        await page.click('#check-session');
        await expect.poll(() => page.getAttribute('#session-status', 'data-status')).toBe('401');
      } finally {
        await context.close();
      }
    });
  });
}
