import { type Browser, chromium } from 'playwright-core';

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
