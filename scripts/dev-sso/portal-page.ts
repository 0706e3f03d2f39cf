/**
 * The demo portal of `npm run dev:sso`: one HTML page and its script. The page performs step 1
 * of the OpenID Connect code flow in the browser (state, nonce and a PKCE S256 challenge made
 * with WebCrypto, kept in sessionStorage), and step 2 through Gatehouse:
 * `POST /api/v1/openid/login/` on the portal's own origin (the portal proxies /api/* to
 * Gatehouse, so the sessionid cookie is first-party and no CORS is involved).
 */

export interface PortalConfig {
  issuer: string;
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  scope: string;
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
    <button id="signin" type="button">Sign in with the OpenID provider</button>
    <p class="hint">Demo account: <b>gina</b> (any password). Also try <b>eve</b> (end user, refused) or <b>bob</b> (two groups, refused).</p>
  </div>
  <div id="signed-in" hidden>
    <h2>ids</h2>
    <pre id="ids"></pre>
    <h2>profile</h2>
    <pre id="profile"></pre>
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

function showSignedIn(body, how) {
  $('status').textContent = how;
  $('ids').textContent = JSON.stringify(body.ids, null, 2);
  $('profile').textContent = JSON.stringify(body.profile, null, 2);
  $('signed-in').hidden = false;
  $('signed-out').hidden = true;
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

async function signIn() {
  if (!crypto.subtle) {
    showError('WebCrypto is only available in a secure context: open the portal as http://localhost.');
    return;
  }
  const state = random();
  const nonce = random();
  const verifier = random(32);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  sessionStorage.setItem(KEY, JSON.stringify({ state, nonce, verifier }));
  const url = new URL(config.authorizationEndpoint);
  const params = {
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
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

async function callback() {
  const params = new URLSearchParams(location.search);
  // The code must not stay in the address bar or the history.
  history.replaceState(null, '', '/');
  const saved = JSON.parse(sessionStorage.getItem(KEY) || 'null');
  sessionStorage.removeItem(KEY);
  if (params.get('error')) {
    showSignedOut('Not signed in.');
    showError('The provider answered ' + params.get('error') + ': ' + (params.get('error_description') || ''));
    return;
  }
  if (!saved || !params.get('state') || params.get('state') !== saved.state) {
    showSignedOut('Not signed in.');
    showError('The state does not match the one this browser sent: not continuing.');
    return;
  }
  if (params.get('iss') && params.get('iss') !== config.issuer) {
    showSignedOut('Not signed in.');
    showError('The response comes from another issuer: not continuing.');
    return;
  }
  $('status').textContent = 'Exchanging the code through Gatehouse...';
  const result = await api('POST', '/api/v1/openid/login/', {
    nonce: saved.nonce,
    authorization_code: params.get('code'),
    redirect_uri: config.redirectUri,
    code_verifier: saved.verifier,
  });
  if (result.status === 200) showSignedIn(result.body, 'Signed in through single sign-on.');
  else {
    showSignedOut('Not signed in.');
    showError('POST /api/v1/openid/login/ failed: ' + problem(result));
  }
}

async function logout() {
  const result = await api('POST', '/api/v1/openid/logout/', {});
  if (result.status === 200) showSignedOut('Signed out (Gatehouse session ended, provider tokens revoked).');
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

$('signin').addEventListener('click', () => void signIn().catch((e) => showError(String(e))));
$('logout').addEventListener('click', () => void logout().catch((e) => showError(String(e))));
$('check-session').addEventListener('click', () => void checkSession().catch((e) => showError(String(e))));

if (location.pathname === '/callback') {
  await callback();
} else {
  const current = await api('GET', '/api/v1/session/');
  if (current.status === 200) showSignedIn(current.body, 'Signed in (existing session).');
  else showSignedOut('Not signed in.');
}
document.body.dataset.ready = 'true';
`;
