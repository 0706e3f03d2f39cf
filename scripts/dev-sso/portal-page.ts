/**
 * The demo portal of `npm run dev:sso`: one HTML page and its script. The portal serves two
 * customers, each with its own OpenID provider: "Log in with Acme" and "Log in with Globex" each
 * perform step 1 of the OpenID Connect code flow in the browser against that customer's provider
 * (state, nonce and a PKCE S256 challenge made with WebCrypto, kept in sessionStorage), with that
 * customer's own redirect URI (`/callback/<customer>`), and step 2 through Gatehouse:
 * `POST /api/v1/openid/login/` on the portal's own origin with the same redirect URI, which is
 * what selects the provider (the portal proxies /api/* to Gatehouse, so the sessionid cookie is
 * first-party and no CORS is involved).
 *
 * The page also has a Security part for password users (security-script.ts: password login and
 * its second step, an authenticator app, passkeys, passkey login) and a Billing page that demands
 * step-up (billing-script.ts, billing-gate.ts). The scripts are ES modules served by the portal.
 */
import { BILLING_JS } from './billing-script.js';
import { PORTAL_COMMON_JS } from './portal-common-script.js';
import { SECURITY_JS } from './security-script.js';

/** One customer's provider, as the portal's buttons need it. */
export interface PortalCustomer {
  /** The registered provider's id. */
  id: string;
  label: string;
  issuer: string;
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
}

export interface PortalConfig {
  scope: string;
  customers: PortalCustomer[];
}

export const PORTAL_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Gatehouse SSO playground</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
    h1 { font-size: 1.4rem; }
    button { font-size: 1rem; padding: .4rem 1rem; margin-right: .5rem; cursor: pointer; }
    input { font-size: 1rem; padding: .3rem; margin-right: .5rem; }
    label { display: inline-block; margin: .25rem 0; }
    pre { background: #f4f4f4; padding: .75rem; overflow-x: auto; }
    section { border-top: 1px solid #ddd; margin-top: 1.5rem; }
    .error { color: #a00; }
    .hint { color: #666; font-size: .9rem; }
    .notice { background: #fff4d6; padding: .5rem .75rem; }
    #totp-qr svg { display: block; margin: .5rem 0; }
    [hidden] { display: none !important; }
  </style>
</head>
<body>
  <h1>Gatehouse SSO playground: demo portal</h1>
  <nav><a id="nav-home" href="/">Portal</a> · <a id="nav-billing" href="/billing">Billing</a></nav>
  <p class="hint">This page plays the customer's web portal. Gatehouse itself serves no page.</p>
  <p id="status">Loading...</p>
  <p id="error" class="error" hidden></p>
  <div id="signed-out" hidden>
    <p id="signin-buttons"></p>
    <p class="hint">Acme's provider: <b>ann</b> (any password) signs in to Acme's tenant; <b>bob</b> is Globex's user, so Acme's provider may not log him in.
      Globex's provider: <b>bob</b> signs in to Globex's tenant; <b>eve</b> (end user) and <b>carl</b> (two groups) are refused.</p>
    <form id="password-login">
      <h2>Log in with a password</h2>
      <label>Username <input id="login-username" name="username" autocomplete="username webauthn"></label>
      <label>Password <input id="login-password" name="password" type="password" autocomplete="current-password"></label>
      <button id="login-submit" type="submit">Log in</button>
      <p class="hint">Gatehouse's own password user: <b>dana</b>, password <b>dana playground password</b>.</p>
    </form>
    <p><button id="passkey-login" type="button">Log in with a passkey</button>
      <span class="hint">(once a passkey is added under Security)</span></p>
  </div>
  <div id="second-step" hidden>
    <h2>Second step</h2>
    <p id="second-step-hint">Your password was right; your account asks for a second factor.</p>
    <form id="second-step-totp">
      <label>Code from your authenticator app <input id="totp-code" inputmode="numeric" autocomplete="one-time-code" maxlength="6"></label>
      <button id="totp-verify" type="submit">Verify</button>
    </form>
    <p><button id="second-step-passkey" type="button">Use a passkey</button></p>
    <form id="second-step-recovery">
      <label>Or a recovery code <input id="recovery-code" autocomplete="off"></label>
      <button id="recovery-verify" type="submit">Use recovery code</button>
    </form>
    <p><button id="second-step-cancel" type="button">Cancel</button></p>
  </div>
  <div id="signed-in" hidden>
    <h2>ids</h2>
    <pre id="ids"></pre>
    <h2>profile</h2>
    <pre id="profile"></pre>
    <h2>your sessions (GET /api/v1/sessions/)</h2>
    <ul id="sessions"></ul>
    <button id="logout" type="button">Logout</button>
    <section id="security">
      <h2>Security</h2>
      <p id="security-status">Loading...</p>
      <div id="security-controls" hidden>
        <p class="hint">Adding a factor asks for your current password, and ends your other sessions.</p>
        <label>Current password <input id="security-password" type="password" autocomplete="current-password"></label>
        <p>
          <button id="totp-setup" type="button">Set up an authenticator app</button>
          <button id="passkey-add" type="button">Add a passkey</button>
          <label>named <input id="passkey-name" value="Playground passkey" maxlength="64"></label>
        </p>
        <div id="totp-enrol" hidden>
          <p>Scan this QR code with your authenticator app (or type the key), then enter the code it shows.</p>
          <div id="totp-qr"></div>
          <p>Key: <code id="totp-secret"></code></p>
          <form id="totp-confirm-form">
            <label>Code <input id="totp-confirm-code" inputmode="numeric" autocomplete="one-time-code" maxlength="6"></label>
            <button id="totp-confirm" type="submit">Confirm</button>
          </form>
        </div>
        <div id="recovery" class="notice" hidden>
          <p>Your recovery codes, each good once, shown only now: keep them somewhere safe.</p>
          <ol id="recovery-codes"></ol>
        </div>
        <ul id="passkeys"></ul>
      </div>
      <p id="security-message"></p>
    </section>
  </div>
  <section id="billing" hidden>
    <h2>Billing</h2>
    <p class="hint">This page wants a login made with two factors (a password and an authenticator app code or a passkey,
      or a passkey alone) in the last 5 minutes: the portal asks Gatehouse's forward-auth check
      <code>GET /api/v1/session/check/?mfa=1&amp;max_age=300</code> before it answers.</p>
    <p id="billing-status"></p>
    <p><button id="billing-relogin" type="button" hidden>Log in again</button></p>
    <ul id="invoices"></ul>
  </section>
  <p><button id="check-session" type="button">GET /api/v1/session/</button> <span id="session-status"></span></p>
  <script type="module" src="/portal.js"></script>
</body>
</html>
`;

export const PORTAL_JS = `// Step 1 in the browser, step 2 through Gatehouse. See scripts/dev-sso/portal-page.ts.
import { $, api, onClick, problem, showError, showSignedIn, showSignedOut, signedIn } from '/portal-common.js';
import { showPending } from '/security.js';
import { showBillingPage } from '/billing.js';

const KEY = 'gatehouse-sso-playground';
const config = await (await fetch('/portal-config.json')).json();

function b64url(bytes) {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
const random = (size = 32) => b64url(crypto.getRandomValues(new Uint8Array(size)));

async function signIn(customer) {
  if (!crypto.subtle) {
    showError('WebCrypto is only available in a secure context: open the portal as http://localhost.');
    return;
  }
  const state = random();
  const nonce = random();
  const verifier = random(32);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  sessionStorage.setItem(KEY, JSON.stringify({ customer: customer.id, state, nonce, verifier }));
  const url = new URL(customer.authorizationEndpoint);
  const params = {
    client_id: customer.clientId,
    // The customer's own redirect URI: Gatehouse selects the provider by it in step 2.
    redirect_uri: customer.redirectUri,
    response_type: 'code',
    scope: config.scope,
    state,
    nonce,
    code_challenge: b64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
  };
  // OpenID Connect Core 11: offline_access (a refresh token, revoked at logout) needs prompt=consent.
  if (config.scope.split(' ').includes('offline_access')) params.prompt = 'consent';
  url.search = new URLSearchParams(params).toString();
  location.assign(url.href);
}

async function callback(customer) {
  const params = new URLSearchParams(location.search);
  // The code must not stay in the address bar or the history.
  history.replaceState(null, '', '/');
  const saved = JSON.parse(sessionStorage.getItem(KEY) || 'null');
  sessionStorage.removeItem(KEY);
  if (params.get('error')) {
    showSignedOut('Not signed in.');
    showError(customer.label + "'s provider answered " + params.get('error') + ': ' + (params.get('error_description') || ''));
    return;
  }
  if (!saved || saved.customer !== customer.id || !params.get('state') || params.get('state') !== saved.state) {
    showSignedOut('Not signed in.');
    showError('The state does not match the one this browser sent: not continuing.');
    return;
  }
  // RFC 9207: the answer must come from the provider this browser was sent to (mix-up defence).
  if (params.get('iss') && params.get('iss') !== customer.issuer) {
    showSignedOut('Not signed in.');
    showError('The response comes from another issuer: not continuing.');
    return;
  }
  $('status').textContent = 'Exchanging the code through Gatehouse...';
  const result = await api('POST', '/api/v1/openid/login/', {
    nonce: saved.nonce,
    authorization_code: params.get('code'),
    redirect_uri: customer.redirectUri,
    code_verifier: saved.verifier,
  });
  if (result.status === 200) await showSignedIn(result.body, 'Signed in through ' + customer.label + "'s provider.", 'sso');
  else {
    showSignedOut('Not signed in.');
    showError('POST /api/v1/openid/login/ failed: ' + problem(result));
  }
}

// The OpenID logout ends a password session too (contract 4); only an SSO session has provider tokens to revoke.
async function logout() {
  const sso = signedIn.via === 'sso';
  const result = await api('POST', '/api/v1/openid/logout/', {});
  if (result.status === 200) {
    showSignedOut(sso ? 'Signed out (Gatehouse session ended, tokens revoked at its provider).' : 'Signed out (Gatehouse session ended).');
  } else {
    showSignedOut('Signed out locally.');
    showError('POST /api/v1/openid/logout/ answered ' + problem(result));
  }
}

async function checkSession() {
  const result = await api('GET', '/api/v1/session/');
  $('session-status').textContent = result.status === 200 ? '200: session active' : problem(result);
  $('session-status').dataset.status = String(result.status);
}

for (const customer of config.customers) {
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'signin-' + customer.id;
  button.textContent = 'Log in with ' + customer.label;
  button.addEventListener('click', () => void signIn(customer).catch((e) => showError(String(e))));
  $('signin-buttons').append(button);
}
onClick('logout', logout);
onClick('check-session', checkSession);

const returning = config.customers.find((customer) => location.pathname === '/callback/' + customer.id);
if (location.pathname === '/billing') showBillingPage();
if (returning) {
  await callback(returning);
} else {
  const current = await api('GET', '/api/v1/session/');
  if (current.status === 200) {
    await showSignedIn(current.body, 'Signed in (existing session).');
  } else if (current.body && current.body.code === 'MFA_REQUIRED') {
    // A password was given in this browser, the second factor not yet (e.g. the page was reloaded).
    showPending(undefined);
  } else showSignedOut('Not signed in.');
}
document.body.dataset.ready = 'true';
`;

/** The portal's scripts by path: ES modules, served by the portal itself. */
export const PORTAL_SCRIPTS: Readonly<Record<string, string>> = {
  '/portal.js': PORTAL_JS,
  '/portal-common.js': PORTAL_COMMON_JS,
  '/security.js': SECURITY_JS,
  '/billing.js': BILLING_JS,
};
