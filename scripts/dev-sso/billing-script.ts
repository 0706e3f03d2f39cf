/**
 * The portal's Billing page (`/billing.js`): asks the portal's own `GET /portal/billing`, which
 * the portal's server answers only after Gatehouse's forward-auth check with step-up demands
 * (billing-gate.ts), and words a refusal for the user: 403 MFA_REQUIRED is "second factor needed",
 * 403 REAUTHENTICATION_REQUIRED is "log in again".
 */
export const BILLING_JS = `// The Billing page. See scripts/dev-sso/billing-script.ts.
import { $, api, onClick, problem, showSignedOut } from '/portal-common.js';

const REFUSALS = {
  NOT_AUTHENTICATED: 'Log in first.',
  MFA_REQUIRED:
    'Second factor needed: billing wants a login made with two factors. Set up an authenticator app or a passkey under ' +
    'Security, then log in again with it (or with the passkey alone).',
  REAUTHENTICATION_REQUIRED: 'Log in again: billing wants a login from the last 5 minutes.',
};

function show(code, message) {
  $('billing-status').textContent = message;
  $('billing-status').dataset.code = code;
  // Both refusals of a live session are mended by a new login.
  $('billing-relogin').hidden = !(code === 'MFA_REQUIRED' || code === 'REAUTHENTICATION_REQUIRED');
}

async function loadBilling() {
  $('invoices').replaceChildren();
  const result = await api('GET', '/portal/billing');
  if (result.status === 200) {
    const who = result.body;
    show('ok', 'Billing for ' + who.username + (who.auth_methods ? ' (signed in with ' + who.auth_methods.join(' + ') + ')' : '') + '.');
    $('invoices').replaceChildren(...who.invoices.map((invoice) => {
      const item = document.createElement('li');
      item.textContent = invoice.number + ': ' + invoice.amount + ', ' + invoice.status;
      return item;
    }));
    return;
  }
  const code = result.body && result.body.code;
  show(code || 'HTTP ' + result.status, REFUSALS[code] || 'GET /portal/billing answered ' + problem(result));
}

async function logInAgain() {
  await api('POST', '/api/v1/logout/', {});
  showSignedOut('Log in again to see billing.');
}

export function showBillingPage() {
  $('billing').hidden = false;
  const reload = () => void loadBilling().catch((e) => show('error', String(e)));
  document.addEventListener('portal:signed-in', reload);
  document.addEventListener('portal:signed-out', reload);
  onClick('billing-relogin', logInAgain);
}
`;
