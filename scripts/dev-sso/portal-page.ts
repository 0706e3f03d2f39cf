/**
 * The demo portal of `npm run dev:sso`: one HTML page and its script. The portal serves two
 * customers, each with its own OpenID provider: "Log in with Acme" and "Log in with Globex" each
 * perform step 1 of the OpenID Connect code flow in the browser against that customer's provider
 * (state, nonce and a PKCE S256 challenge made with WebCrypto, kept in sessionStorage), with that
 * customer's own redirect URI (`/callback/<customer>`), and step 2 through Gatehouse:
 * `POST /api/v1/openid/login/` on the portal's own origin with the same redirect URI, which is
 * what selects the provider (the portal proxies /api/* to Gatehouse, so the sessionid cookie is
 * first-party and no CORS is involved).
 */

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
    pre { background: #f4f4f4; padding: .75rem; overflow-x: auto; }
    .error { color: #a00; }
    .hint { color: #666; font-size: .9rem; }
    [hidden] { display: none !important; }
  </style>
</head>
<body>
  <h1>Gatehouse SSO playground: demo portal</h1>
  <p class="hint">This page plays the customer's web portal. Gatehouse itself serves no page.</p>
  <p id="status">Loading...</p>
  <p id="error" class="error" hidden></p>
  <div id="signed-out" hidden>
    <p id="signin-buttons"></p>
    <p class="hint">Acme's provider: <b>ann</b> (any password) signs in to Acme's tenant; <b>bob</b> is Globex's user, so Acme's provider may not log him in.
      Globex's provider: <b>bob</b> signs in to Globex's tenant; <b>eve</b> (end user) and <b>carl</b> (two groups) are refused.</p>
  </div>
  <div id="signed-in" hidden>
    <h2>ids</h2>
    <pre id="ids"></pre>
    <h2>profile</h2>
    <pre id="profile"></pre>
    <h2>your sessions (GET /api/v1/sessions/)</h2>
    <ul id="sessions"></ul>
    <button id="logout" type="button">Logout</button>
  </div>
  <p><button id="check-session" type="button">GET /api/v1/session/</button> <span id="session-status"></span></p>
  <script type="module" src="/portal.js"></script>
</body>
</html>
`;

export const PORTAL_JS = `// Step 1 in the browser, step 2 through Gatehouse. See scripts/dev-sso/portal-page.ts.
const KEY = 'gatehouse-sso-playground';
const $ = (id) => document.getElementById(id);
const config = await (await fetch('/portal-config.json')).json();

function b64url(bytes) {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
const random = (size = 32) => b64url(crypto.getRandomValues(new Uint8Array(size)));

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = false;
}

async function showSignedIn(body, how) {
  $('status').textContent = how;
  $('ids').textContent = JSON.stringify(body.ids, null, 2);
  $('profile').textContent = JSON.stringify(body.profile, null, 2);
  $('signed-in').hidden = false;
  $('signed-out').hidden = true;
  await listSessions();
}

function showSignedOut(message) {
  $('status').textContent = message;
  $('signed-in').hidden = true;
  $('signed-out').hidden = false;
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const text = await response.text();
  let json;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  return { status: response.status, body: json };
}

function problem(result) {
  const code = result.body && result.body.code ? result.body.code : 'HTTP ' + result.status;
  const detail = result.body && result.body.detail ? ': ' + result.body.detail : '';
  return code + detail;
}

// Each SSO session names the provider it came through: that is how you tell Acme's from Globex's.
async function listSessions() {
  const list = $('sessions');
  list.replaceChildren();
  const result = await api('GET', '/api/v1/sessions/');
  if (result.status !== 200) {
    showError('GET /api/v1/sessions/ answered ' + problem(result));
    return;
  }
  for (const session of result.body.sessions) {
    const item = document.createElement('li');
    item.dataset.provider = session.provider || '';
    item.dataset.current = String(session.current);
    item.textContent = session.method + (session.provider ? ' through provider "' + session.provider + '"' : '') +
      ', since ' + session.created_at + (session.current ? ' (this browser)' : '');
    list.append(item);
  }
}

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
  if (result.status === 200) await showSignedIn(result.body, 'Signed in through ' + customer.label + "'s provider.");
  else {
    showSignedOut('Not signed in.');
    showError('POST /api/v1/openid/login/ failed: ' + problem(result));
  }
}

async function logout() {
  const result = await api('POST', '/api/v1/openid/logout/', {});
  if (result.status === 200) showSignedOut("Signed out (Gatehouse session ended, tokens revoked at its provider).");
  else {
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
$('logout').addEventListener('click', () => void logout().catch((e) => showError(String(e))));
$('check-session').addEventListener('click', () => void checkSession().catch((e) => showError(String(e))));

const returning = config.customers.find((customer) => location.pathname === '/callback/' + customer.id);
if (returning) {
  await callback(returning);
} else {
  const current = await api('GET', '/api/v1/session/');
  if (current.status === 200) await showSignedIn(current.body, 'Signed in (existing session).');
  else showSignedOut('Not signed in.');
}
document.body.dataset.ready = 'true';
`;
