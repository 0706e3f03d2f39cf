/**
 * The `npm run dev:sso` portal's Security part and Billing page in a real headless Chromium, on
 * Koa and on Fastify (issue 28 item 9). Passkeys are made and used by Chrome's own virtual
 * authenticator (DevTools protocol `WebAuthn.addVirtualAuthenticator`), not by a stand-in in the
 * test: the page calls `navigator.credentials.create/get` exactly as it would with a real one.
 * TOTP codes come from the secret the enrolment showed, computed here with `otpauth`.
 *
 * Each scenario seeds a password user of its own, so that one scenario's factors do not change
 * another's login; the playground starts once per transport.
 */

import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DANA, type DemoPasswordUser, seedPasswordUser } from '../../scripts/dev-sso/password-user.js';
import { type Playground, startPlayground } from '../../scripts/dev-sso/playground.js';
import { chromiumForThisFile } from '../support/chromium.js';

const browser = chromiumForThisFile();

const textOf = async (page: Page, selector: string) => (await page.textContent(selector)) ?? '';

/** The page's status line, and its error line when there is one: a failed poll then says why. */
const statusOf = async (page: Page) => {
  const error = await textOf(page, '#error');
  return (await textOf(page, '#status')) + (error ? ` [error: ${error}]` : '');
};

/** A password user of the scenario's own, in Acme's tenant as the playground's dana is. */
const userNamed = (username: string): DemoPasswordUser => ({
  ...DANA,
  username,
  password: `${username} test password 2026`,
  attributes: { firstName: username },
});

/**
 * The code an authenticator app shows `stepsAhead` time steps from now. Gatehouse accepts a step
 * once and no step older than one used (docs/second-factors.md), and one step either side of now:
 * the enrolment's confirmation uses now's step, the login after it the next one.
 */
const totpCode = (secret: string, stepsAhead = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: Date.now() + stepsAhead * 30_000,
  });

/** Chrome's virtual platform authenticator on this page: a passkey store with user verification. */
async function attachAuthenticator(
  context: BrowserContext,
  page: Page,
): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { cdp, authenticatorId };
}

for (const transport of ['koa', 'fastify'] as const) {
  describe(`MFA playground portal in headless Chromium with a virtual authenticator [${transport === 'koa' ? 'pglite' : 'fastify'}]`, () => {
    let playground: Playground;

    beforeAll(async () => {
      playground = await startPlayground({
        ports: 0,
        logLevel: 'silent',
        env: { HTTP_TRANSPORT: transport },
      });
    }, 90_000);

    afterAll(async () => {
      await playground?.close();
    });

    async function open(page: Page, path: '/' | '/billing' = '/'): Promise<void> {
      await page.goto(`${playground.portalUrl}${path}`, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('body[data-ready="true"]');
    }

    async function newPortalPage(context: BrowserContext): Promise<Page> {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await open(page);
      await expect.poll(() => statusOf(page)).toBe('Not signed in.');
      return page;
    }

    async function typePassword(page: Page, user: DemoPasswordUser): Promise<void> {
      await page.fill('#login-username', user.username);
      await page.fill('#login-password', user.password);
      await page.click('#login-submit');
    }

    /** A password login of a user with no factor: a full session at once. */
    async function passwordLogin(page: Page, user: DemoPasswordUser): Promise<void> {
      await typePassword(page, user);
      await expect.poll(() => statusOf(page)).toBe('Signed in with a password.');
      expect(JSON.parse(await textOf(page, '#profile'))).toMatchObject({ username: user.username });
    }

    async function logOut(page: Page): Promise<void> {
      await page.click('#logout');
      await expect.poll(() => statusOf(page)).toMatch(/^Signed out/);
      expect(await textOf(page, '#error')).toBe('');
    }

    /** What the Billing page shows once the portal's server has asked the forward-auth check. */
    async function billing(page: Page): Promise<{ code: string; text: string }> {
      await expect.poll(() => page.getAttribute('#billing-status', 'data-code')).not.toBeNull();
      return {
        code: (await page.getAttribute('#billing-status', 'data-code')) ?? '',
        text: await textOf(page, '#billing-status'),
      };
    }

    async function securityReady(page: Page): Promise<void> {
      await expect.poll(() => page.getAttribute('#security-status', 'data-status')).toBe('200');
    }

    // Needs nothing of the MFA routes: the page, the portal's own routes, the virtual authenticator.
    it('offers password and passkey login and a Billing page; the virtual authenticator attaches; the portal draws QR codes', {
      timeout: 60_000,
    }, async () => {
      await browser.inNewContext(async (context) => {
        const page = await newPortalPage(context);
        const { cdp, authenticatorId } = await attachAuthenticator(context, page);
        expect(authenticatorId).toMatch(/.+/);
        // The page's WebAuthn calls exist in this Chromium: the JSON forms in and out.
        expect(
          await page.evaluate(
            '[typeof PublicKeyCredential.parseCreationOptionsFromJSON, typeof PublicKeyCredential.parseRequestOptionsFromJSON, typeof PublicKeyCredential.prototype.toJSON]',
          ),
        ).toEqual(['function', 'function', 'function']);
        expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toEqual([]);
        expect(await page.isVisible('#password-login')).toBe(true);
        expect(await textOf(page, '#passkey-login')).toBe('Log in with a passkey');
        expect(await page.isVisible('#second-step')).toBe(false);

        // The QR code of an enrolment: SVG from the portal's server; nothing but otpauth://totp/ is drawn.
        const drawn = (await page.evaluate(`(async () => {
          const draw = (body) => fetch('/portal/qr', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
          const good = await draw({ otpauth_uri: 'otpauth://totp/Gatehouse:dana?secret=JBSWY3DPEHPK3PXP&issuer=Gatehouse' });
          const bad = await draw({ otpauth_uri: 'https://example.com/' });
          return { status: good.status, type: good.headers.get('content-type'), svg: (await good.text()).slice(0, 4), bad: bad.status };
        })()`)) as { status: number; type: string; svg: string; bad: number };
        expect(drawn).toEqual({ status: 200, type: 'image/svg+xml', svg: '<svg', bad: 400 });

        // Billing without a session: the forward-auth check's 401, worded for the user.
        await open(page, '/billing');
        expect(await page.isVisible('#billing')).toBe(true);
        expect(await billing(page)).toEqual({ code: 'NOT_AUTHENTICATED', text: 'Log in first.' });
        expect(await page.isVisible('#billing-relogin')).toBe(false);

        // The playground's own password user logs in with the password it prints.
        await open(page);
        await passwordLogin(page, DANA);
        expect(await textOf(page, '#error')).toBe('');
        await logOut(page);
      });
    });

    // The assertions from here on need the MFA routes of contract 3b (other branches of issue 28).
    it('billing refuses a password-only session ("second factor needed"); an authenticator app is set up from its QR code; password + TOTP then opens billing', {
      timeout: 90_000,
    }, async () => {
      const tess = userNamed('tess');
      await seedPasswordUser(playground.gatehouse, tess);
      await browser.inNewContext(async (context) => {
        const page = await newPortalPage(context);
        await passwordLogin(page, tess);

        // Step-up: a password alone is one factor.
        await open(page, '/billing');
        const refused = await billing(page);
        expect(refused.code).toBe('MFA_REQUIRED');
        expect(refused.text).toMatch(/^Second factor needed/);
        expect(await page.isVisible('#billing-relogin')).toBe(true);
        expect(await page.$$('#invoices li')).toHaveLength(0);

        // Security: the authenticator app, with the current password.
        await open(page);
        await securityReady(page);
        expect(await page.getAttribute('#security-status', 'data-totp')).toBe('false');
        await page.fill('#security-password', tess.password);
        await page.click('#totp-setup');
        await page.waitForSelector('#totp-enrol:not([hidden])');
        expect(await page.$$('#totp-qr svg path')).not.toHaveLength(0);
        const secret = await textOf(page, '#totp-secret');
        expect(secret).toMatch(/^[A-Z2-7]+=*$/);
        await page.fill('#totp-confirm-code', totpCode(secret));
        await page.click('#totp-confirm');
        await expect.poll(() => textOf(page, '#security-message')).toBe('Authenticator app added.');
        // The first factor brings the recovery codes, shown this once.
        expect(await page.$$('#recovery-codes li')).toHaveLength(10);
        await expect.poll(() => page.getAttribute('#security-status', 'data-totp')).toBe('true');
        expect(await page.isVisible('#totp-enrol')).toBe(false);
        expect(await textOf(page, '#totp-secret')).toBe('');

        // The session is still the password-only one: billing says so, and "Log in again" mends it.
        await open(page, '/billing');
        expect((await billing(page)).code).toBe('MFA_REQUIRED');
        expect(await page.isVisible('#recovery')).toBe(false);
        await page.click('#billing-relogin');
        await expect.poll(() => statusOf(page)).toBe('Log in again to see billing.');
        await typePassword(page, tess);
        await expect.poll(() => statusOf(page)).toBe('Second factor needed.');
        expect(await page.isVisible('#second-step-totp')).toBe(true);
        // Tess has no passkey: the second step does not offer one.
        expect(await page.isVisible('#second-step-passkey')).toBe(false);
        // A pending session is no login: the forward-auth check refuses it as well.
        expect(
          await page.evaluate(
            "fetch('/portal/billing').then(async (r) => ({ status: r.status, code: (await r.json()).code }))",
          ),
        ).toEqual({ status: 403, code: 'MFA_REQUIRED' });

        await page.fill('#totp-code', totpCode(secret, 1));
        await page.click('#totp-verify');
        await expect
          .poll(() => statusOf(page))
          .toBe('Signed in with a password and an authenticator app code.');
        expect(JSON.parse(await textOf(page, '#profile'))).toMatchObject({ username: 'tess' });
        await expect.poll(async () => (await billing(page)).code).toBe('ok');
        expect(await textOf(page, '#billing-status')).toMatch(
          /^Billing for tess \(signed in with .*otp.*\)\.$/,
        );
        expect(await page.$$('#invoices li')).toHaveLength(2);
        expect(await textOf(page, '#error')).toBe('');
      });
    });

    it('adds a passkey with the virtual authenticator; logs in with the passkey alone (billing opens), and with password + passkey', {
      timeout: 90_000,
    }, async () => {
      const pat = userNamed('pat');
      await seedPasswordUser(playground.gatehouse, pat);
      await browser.inNewContext(async (context) => {
        const page = await newPortalPage(context);
        const { cdp, authenticatorId } = await attachAuthenticator(context, page);
        await passwordLogin(page, pat);
        await securityReady(page);

        await page.fill('#security-password', pat.password);
        await page.fill('#passkey-name', 'Virtual key');
        await page.click('#passkey-add');
        await expect.poll(() => textOf(page, '#security-message')).toBe('Passkey "Virtual key" added.');
        expect(await page.$$('#recovery-codes li')).toHaveLength(10);
        await expect.poll(() => page.getAttribute('#security-status', 'data-passkeys')).toBe('1');
        // The credential lives in Chrome's authenticator, discoverable, for the portal's host.
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
        expect(credentials).toHaveLength(1);
        expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

        // No password: the passkey with user verification is the whole login, and two factors.
        await logOut(page);
        await page.click('#passkey-login');
        await expect.poll(() => statusOf(page)).toBe('Signed in with a passkey.');
        expect(await textOf(page, '#error')).toBe('');
        expect(JSON.parse(await textOf(page, '#profile'))).toMatchObject({ username: 'pat' });
        await open(page, '/billing');
        await expect.poll(async () => (await billing(page)).code).toBe('ok');
        expect(await textOf(page, '#billing-status')).toMatch(/^Billing for pat /);

        // Password, then the passkey as the second factor.
        await open(page);
        await logOut(page);
        await typePassword(page, pat);
        await expect.poll(() => statusOf(page)).toBe('Second factor needed.');
        expect(await page.isVisible('#second-step-totp')).toBe(false);
        await page.click('#second-step-passkey');
        await expect.poll(() => statusOf(page)).toBe('Signed in with a password and a passkey.');
        expect(await textOf(page, '#error')).toBe('');
        // Each assertion advanced the authenticator's counter.
        const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
        expect(after.credentials[0]!.signCount).toBeGreaterThanOrEqual(2);
      });
    });
  });
}
