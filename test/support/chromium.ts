import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** The Chromium installed on the machine (Debian's package), driven headless by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium with no background traffic. `localhost` is mapped to 127.0.0.1, where the
 * test servers listen: Chromium treats http://localhost as a secure context, so `Secure` and
 * prefixed cookies from a plain-http test server stick as they would over HTTPS.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      '--host-resolver-rules=MAP localhost 127.0.0.1',
    ],
  });
}

/** A test file's browser, there from the file's `beforeAll` on. */
export interface FileBrowser {
  /** Runs `use` in a context of its own (no cookies or storage from other tests), closed after it. */
  inNewContext<T>(use: (context: BrowserContext) => Promise<T>): Promise<T>;
}

/**
 * One browser for the whole test file (its launch is the slow part), each test in a context of its
 * own. Call it at the top level of the file: it registers the file's `beforeAll` and `afterAll`.
 */
export function chromiumForThisFile(): FileBrowser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async inNewContext(use) {
      if (!browser) throw new Error('chromiumForThisFile: the browser is there from beforeAll on');
      const context = await browser.newContext();
      try {
        return await use(context);
      } finally {
        await context.close();
      }
    },
  };
}
