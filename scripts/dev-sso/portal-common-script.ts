/**
 * The portal's shared browser module (`/portal-common.js`): the page's elements, calls to Gatehouse
 * through the portal's /api/* proxy, problem+json wording, and the signed-in / signed-out views.
 * The SSO part (portal-page.ts), the Security part (security-script.ts) and the Billing page
 * (billing-script.ts) all use it.
 */
export const PORTAL_COMMON_JS = `// Shared by the portal's scripts. See scripts/dev-sso/portal-common-script.ts.
export const $ = (id) => document.getElementById(id);

export function showError(message) {
  $('error').textContent = message;
  $('error').hidden = false;
}

export function clearError() {
  $('error').textContent = '';
  $('error').hidden = true;
}

export async function api(method, path, body) {
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

export function problem(result) {
  const code = result.body && result.body.code ? result.body.code : 'HTTP ' + result.status;
  const detail = result.body && result.body.detail ? ': ' + result.body.detail : '';
  return code + detail;
}

// Each SSO session names the provider it came through: that is how you tell Acme's from Globex's.
export async function listSessions() {
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
    // An existing session (a reloaded page): whether it came through a provider.
    if (session.current && signedIn.via === undefined) signedIn.via = session.provider ? 'sso' : 'password';
  }
}

/** How this browser's session was made: 'sso' or 'password' (a passkey counts as the latter: no provider); undefined when not known yet. */
export const signedIn = { via: undefined };

export async function showSignedIn(body, how, via) {
  signedIn.via = via;
  $('status').textContent = how;
  $('ids').textContent = JSON.stringify(body.ids, null, 2);
  $('profile').textContent = JSON.stringify(body.profile, null, 2);
  $('signed-in').hidden = false;
  $('signed-out').hidden = true;
  $('second-step').hidden = true;
  await listSessions();
  // The Security part and the Billing page refresh themselves.
  document.dispatchEvent(new CustomEvent('portal:signed-in'));
}

export function showSignedOut(message) {
  signedIn.via = undefined;
  $('status').textContent = message;
  $('signed-in').hidden = true;
  $('signed-out').hidden = false;
  $('second-step').hidden = true;
  document.dispatchEvent(new CustomEvent('portal:signed-out'));
}

/** A click handler whose failure is shown, not lost. */
export function onClick(id, handler) {
  $(id).addEventListener('click', () => void handler().catch((e) => showError(String(e))));
}
`;
