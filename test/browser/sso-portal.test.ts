/**
 * The `npm run dev:sso` playground in a real headless Chromium: two customers (Acme and Globex),
 * each with its own OpenID provider registered in Gatehouse's registry. The demo portal runs step
 * 1 in the browser with the customer's own redirect URI, the user signs in on that provider's own
 * login page, the portal finishes through `POST /api/v1/openid/login/` (the redirect URI selects
 * the provider) and shows ids, profile and the session list naming the provider; logout ends the
 * session. One customer's provider cannot log in the other customer's user.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Playground,
  type PlaygroundCustomer,
  startPlayground,
} from '../../scripts/dev-sso/playground.js';
import { chromiumForThisFile } from '../support/chromium.js';

/** GET /api/v1/session/ from the page, with the browser's own cookies, through the portal. */
const sessionStatus = (page: Page) =>
  page.evaluate(async () => (await fetch('/api/v1/session/', { credentials: 'same-origin' })).status);

const textOf = async (page: Page, selector: string) => (await page.textContent(selector)) ?? '';

const browser = chromiumForThisFile();

// The browser flow on each transport that can serve the API (issue 12).
for (const transport of ['koa', 'fastify'] as const) {
  describe(`SSO playground portal with two customers' providers in headless Chromium [${transport === 'koa' ? 'pglite' : 'fastify'}]`, () => {
    let playground: Playground;
    let acme: PlaygroundCustomer;
    let globex: PlaygroundCustomer;

    beforeAll(async () => {
      playground = await startPlayground({
        ports: 0,
        logLevel: 'silent',
        env: { HTTP_TRANSPORT: transport },
      });
      acme = playground.customers.acme!;
      globex = playground.customers.globex!;
    }, 90_000);

    afterAll(async () => {
      await playground?.close();
    });

    async function openPortal(context: BrowserContext): Promise<Page> {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(playground.portalUrl, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('body[data-ready="true"]');
      await expect.poll(() => page.textContent('#status')).toBe('Not signed in.');
      return page;
    }

    /**
     * Clicks "Log in with <customer>", signs in as `login` on that provider's development login page
     * (any password), consents, and waits for the portal to finish. Returns the authorization
     * request the browser sent.
     */
    async function logInWith(
      page: Page,
      customer: PlaygroundCustomer,
      login: string,
    ): Promise<URLSearchParams> {
      const authorizationRequests: URL[] = [];
      const record = (request: { url(): string }) => {
        const url = new URL(request.url());
        if (url.pathname === '/auth') authorizationRequests.push(url);
      };
      page.on('request', record);
      try {
        await page.click(`#signin-${customer.customer.id}`);
        await page.waitForURL((url) => url.href.startsWith(`${customer.issuer}/interaction/`), {
          waitUntil: 'domcontentloaded',
        });
        await page.fill('input[name="login"]', login);
        await page.fill('input[name="password"]', 'any password at all');
        await page.click('button[type="submit"]');
        // offline_access: the provider asks for consent.
        await page.waitForURL(
          (url) =>
            url.href.startsWith(`${playground.portalUrl}/`) || url.pathname.startsWith('/interaction/'),
          { waitUntil: 'domcontentloaded' },
        );
        if (page.url().startsWith(customer.issuer)) {
          await page.waitForSelector('input[name="prompt"][value="consent"]', { state: 'attached' });
          await page.click('button[type="submit"]');
        }
        // Step 2 through Gatehouse; the portal shows what it answered.
        await page.waitForURL(`${playground.portalUrl}/`, { waitUntil: 'domcontentloaded' });
        await page.waitForSelector('body[data-ready="true"]');
      } finally {
        page.off('request', record);
      }
      // Only the selected customer's provider was asked.
      expect(authorizationRequests.map((url) => url.origin)).toEqual([customer.issuer]);
      return authorizationRequests[0]!.searchParams;
    }

    /** The portal's session list: the provider of each session, and which one is this browser's. */
    const listedSessions = (page: Page) =>
      page.$$eval('#sessions li', (items) =>
        items.map((item) => ({
          provider: item.getAttribute('data-provider'),
          current: item.getAttribute('data-current'),
        })),
      );

    async function logOut(page: Page, context: BrowserContext): Promise<void> {
      await page.click('#logout');
      await expect.poll(() => page.textContent('#status')).toMatch(/^Signed out/);
      expect(await textOf(page, '#error')).toBe('');
      expect(await sessionStatus(page)).toBe(401);
      expect((await context.cookies(playground.portalUrl)).map((cookie) => cookie.name)).not.toContain(
        'sessionid',
      );
    }

    it('offers one login button per customer', { timeout: 30_000 }, async () => {
      await browser.inNewContext(async (context) => {
        const page = await openPortal(context);
        expect(
          await page.$$eval('#signin-buttons button', (buttons) => buttons.map((b) => b.textContent)),
        ).toEqual(['Log in with Acme', 'Log in with Globex']);
      });
    });

    it("logs Acme's user in through Acme's provider and Globex's through Globex's, each in its own tenant, the session list naming the provider", {
      timeout: 90_000,
    }, async () => {
      await browser.inNewContext(async (context) => {
        const page = await openPortal(context);

        // Acme: its own issuer, its own redirect URI, its own interpreter (the example package).
        const globexRequests = globex.provider.requests.length;
        const acmeAuthorization = await logInWith(page, acme, 'ann');
        expect(Object.fromEntries(acmeAuthorization)).toMatchObject({
          client_id: 'gatehouse',
          response_type: 'code',
          redirect_uri: acme.redirectUri,
          scope: 'openid profile offline_access',
          code_challenge_method: 'S256',
          code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        });
        expect(await textOf(page, '#error')).toBe('');
        expect(await textOf(page, '#status')).toBe("Signed in through Acme's provider.");
        expect(JSON.parse(await textOf(page, '#ids'))).toStrictEqual({
          tenant_id: 't-acme',
          group_id: 'g-acme',
        });
        expect(JSON.parse(await textOf(page, '#profile'))).toMatchObject({
          username: 'ann',
          user_level: 8,
          is_first_login: true,
        });
        await expect.poll(() => listedSessions(page)).toEqual([{ provider: 'acme', current: 'true' }]);
        // The code went to Acme's token endpoint only: Globex's provider heard nothing.
        expect(globex.provider.requests.length).toBe(globexRequests);

        // The session cookie is HttpOnly: invisible to the page, yet sent by the browser.
        const session = (await context.cookies(playground.portalUrl)).find((c) => c.name === 'sessionid');
        expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
        // (`document` exists in the page; this file is compiled without the DOM library.)
        expect(await page.evaluate('document.cookie')).not.toContain('sessionid');
        expect(await sessionStatus(page)).toBe(200);
        await logOut(page, context);

        // Globex, in the same browser: its own issuer and keys (ES256), the built-in interpreter.
        const acmeRequests = acme.provider.requests.length;
        const globexAuthorization = await logInWith(page, globex, 'bob');
        expect(globexAuthorization.get('redirect_uri')).toBe(globex.redirectUri);
        expect(await textOf(page, '#error')).toBe('');
        expect(await textOf(page, '#status')).toBe("Signed in through Globex's provider.");
        expect(JSON.parse(await textOf(page, '#ids'))).toStrictEqual({
          tenant_id: 't-globex',
          group_id: 'g-globex',
        });
        expect(JSON.parse(await textOf(page, '#profile'))).toMatchObject({ username: 'bob', user_level: 8 });
        await expect.poll(() => listedSessions(page)).toEqual([{ provider: 'globex', current: 'true' }]);
        expect(acme.provider.requests.length).toBe(acmeRequests);
        await logOut(page, context);

        await page.click('#check-session');
        await expect.poll(() => page.getAttribute('#session-status', 'data-status')).toBe('401');
      });
    });

    it("refuses Globex's user vouched for by Acme's provider: Acme logs in only Acme's tenant", {
      timeout: 60_000,
    }, async () => {
      await browser.inNewContext(async (context) => {
        const page = await openPortal(context);
        // Acme's provider asserts bob of group g-globex: username and group match Globex's bob.
        await logInWith(page, acme, 'bob');
        await expect.poll(() => page.textContent('#error')).toContain('SSO_INVALID_GROUPID_AND_USERNAME');
        expect(await textOf(page, '#status')).toBe('Not signed in.');
        expect(await sessionStatus(page)).toBe(401);
        expect((await context.cookies(playground.portalUrl)).map((cookie) => cookie.name)).not.toContain(
          'sessionid',
        );
        const trail = await playground.gatehouse.store.audit.listSince(new Date(0), 1000);
        expect(trail).toContainEqual(
          expect.objectContaining({
            event: 'login',
            outcome: 'failure',
            reason: 'tenant_not_allowed_for_provider',
            providerId: 'acme',
            username: 'bob',
          }),
        );
      });
    });
  });
}
