/**
 * The portal's Security part (`/security.js`), for Gatehouse's own password users (contract 3b):
 *
 * - password login, and its second step when the answer says `mfa_required`: a code of the
 *   authenticator app, a passkey (`POST /api/v1/mfa/webauthn/options/`, then `navigator.credentials.get`,
 *   then `POST /api/v1/mfa/verify/` with `{webauthn}`), or a recovery code;
 * - "Log in with a passkey" with no password (`/api/v1/webauthn/login/options/` and `/login/`);
 * - on a live session: "Set up an authenticator app" (the QR code of the `otpauth_uri`, drawn by the
 *   portal's server, then `totp/confirm/`) and "Add a passkey" (`register/options/`, then
 *   `navigator.credentials.create`, then `register/`); recovery codes are shown once, when answered.
 *
 * WebAuthn options and responses travel in their W3C JSON forms: `PublicKeyCredential.parse*FromJSON`
 * and the credential's `toJSON()` (Chromium 129 on, Firefox 119 on, Safari 18.4 on).
 */
export const SECURITY_JS = `// Second factors and passkeys. See scripts/dev-sso/security-script.ts.
import { $, api, clearError, onClick, problem, showError, showSignedIn, showSignedOut } from '/portal-common.js';

function say(message, kind) {
  $('security-message').textContent = message;
  $('security-message').dataset.kind = kind;
}

// Gatehouse may answer the options bare or under publicKey: the browser wants the inner object.
const creationOptions = (json) => PublicKeyCredential.parseCreationOptionsFromJSON(json.publicKey || json);
const requestOptions = (json) => PublicKeyCredential.parseRequestOptionsFromJSON(json.publicKey || json);

/** The W3C JSON form of an assertion, or undefined when the browser or the user gave none. */
async function assertion(optionsJson) {
  const credential = await navigator.credentials.get({ publicKey: requestOptions(optionsJson) });
  return credential ? credential.toJSON() : undefined;
}

// --- Logging in -------------------------------------------------------------------------------

/** The second step, after a right password of a user with a factor. methods: undefined when not known. */
export function showPending(methods, enrolment) {
  $('status').textContent = enrolment ? 'A second factor must be set up first.' : 'Second factor needed.';
  $('signed-out').hidden = true;
  $('signed-in').hidden = true;
  $('second-step').hidden = false;
  const offers = (method) => methods === undefined || methods.includes(method);
  $('second-step-totp').hidden = enrolment || !offers('totp');
  $('second-step-passkey').hidden = enrolment || !offers('webauthn');
  $('second-step-recovery').hidden = enrolment || !offers('recovery_code');
  $('second-step-hint').textContent = enrolment
    ? 'Your user level must have a second factor (MFA_REQUIRED_LEVELS), and this account has none yet: ask an administrator.'
    : 'Your password was right; your account asks for a second factor.';
  if (!$('second-step-totp').hidden) $('totp-code').focus();
}

async function passwordLogin() {
  clearError();
  const result = await api('POST', '/api/v1/login/', {
    username: $('login-username').value,
    password: $('login-password').value,
  });
  $('login-password').value = '';
  if (result.status !== 200) {
    showError('POST /api/v1/login/ failed: ' + problem(result));
    return;
  }
  const profile = result.body.profile;
  if (profile.mfa_enrollment_required) showPending([], true);
  else if (profile.mfa_required) showPending(profile.mfa_methods);
  else await showSignedIn(result.body, 'Signed in with a password.', 'password');
}

async function verify(factor, how) {
  clearError();
  const result = await api('POST', '/api/v1/mfa/verify/', factor);
  if (result.status === 200) await showSignedIn(result.body, how, 'password');
  else showError('POST /api/v1/mfa/verify/ failed: ' + problem(result));
}

async function verifyWithPasskey() {
  clearError();
  const options = await api('POST', '/api/v1/mfa/webauthn/options/', {});
  if (options.status !== 200) {
    showError('POST /api/v1/mfa/webauthn/options/ failed: ' + problem(options));
    return;
  }
  const webauthn = await assertion(options.body);
  if (webauthn) await verify({ webauthn }, 'Signed in with a password and a passkey.');
}

async function passkeyLogin() {
  clearError();
  const options = await api('POST', '/api/v1/webauthn/login/options/', {});
  if (options.status !== 200) {
    showError('POST /api/v1/webauthn/login/options/ failed: ' + problem(options));
    return;
  }
  const response = await assertion(options.body);
  if (!response) return;
  // The bare AuthenticationResponseJSON is the body (contract 3b).
  const result = await api('POST', '/api/v1/webauthn/login/', response);
  if (result.status === 200) await showSignedIn(result.body, 'Signed in with a passkey.', 'password');
  else showError('POST /api/v1/webauthn/login/ failed: ' + problem(result));
}

async function cancelSecondStep() {
  await api('POST', '/api/v1/logout/', {});
  showSignedOut('Not signed in.');
}

$('password-login').addEventListener('submit', (event) => {
  event.preventDefault();
  void passwordLogin().catch((e) => showError(String(e)));
});
$('second-step-totp').addEventListener('submit', (event) => {
  event.preventDefault();
  const totp = $('totp-code').value.trim();
  $('totp-code').value = '';
  void verify({ totp }, 'Signed in with a password and an authenticator app code.').catch((e) => showError(String(e)));
});
$('second-step-recovery').addEventListener('submit', (event) => {
  event.preventDefault();
  const code = $('recovery-code').value.trim();
  $('recovery-code').value = '';
  void verify({ recovery_code: code }, 'Signed in with a password and a recovery code.').catch((e) => showError(String(e)));
});
onClick('second-step-passkey', verifyWithPasskey);
onClick('passkey-login', passkeyLogin);
onClick('second-step-cancel', cancelSecondStep);

// --- Managing factors (a live session) --------------------------------------------------------

async function refreshSecurity() {
  const status = $('security-status');
  const result = await api('GET', '/api/v1/mfa/');
  status.dataset.status = String(result.status);
  if (result.status === 200) {
    const factors = result.body;
    status.dataset.totp = String(factors.totp);
    status.dataset.passkeys = String(factors.webauthn.length);
    status.textContent = 'Authenticator app: ' + (factors.totp ? 'on' : 'off') + '. Passkeys: ' + factors.webauthn.length +
      '. Recovery codes left: ' + factors.recovery_codes_left + '.' + (factors.required ? ' Your user level requires a second factor.' : '');
    $('passkeys').replaceChildren(...factors.webauthn.map((passkey) => {
      const item = document.createElement('li');
      item.textContent = passkey.name + ', added ' + passkey.created_at + (passkey.last_used_at ? ', last used ' + passkey.last_used_at : '');
      return item;
    }));
    $('security-controls').hidden = false;
  } else if (result.body && result.body.code === 'MFA_NOT_APPLICABLE') {
    status.textContent = "You signed in through your company's provider: it does your second factor, not Gatehouse.";
    $('security-controls').hidden = true;
  } else {
    status.textContent = 'GET /api/v1/mfa/ answered ' + problem(result);
    $('security-controls').hidden = true;
  }
}

function showRecoveryCodes(codes) {
  if (!codes) return;
  $('recovery-codes').replaceChildren(...codes.map((code) => {
    const item = document.createElement('li');
    item.textContent = code;
    return item;
  }));
  $('recovery').hidden = false;
}

/** The current password each starting call sends (contract 3b, ASVS 7.5.1); read once, then cleared. */
function currentPassword() {
  const password = $('security-password').value;
  $('security-password').value = '';
  return password;
}

async function startTotp() {
  say('', '');
  const result = await api('POST', '/api/v1/mfa/totp/', { password: currentPassword() });
  if (result.status !== 200) {
    say('POST /api/v1/mfa/totp/ failed: ' + problem(result), 'error');
    return;
  }
  // The portal's server draws the QR code (scripts/dev-sso/qr-code.ts).
  const drawn = await fetch('/portal/qr', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ otpauth_uri: result.body.otpauth_uri }),
  });
  const svg = new DOMParser().parseFromString(await drawn.text(), 'image/svg+xml').documentElement;
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'QR code for your authenticator app');
  $('totp-qr').replaceChildren(document.importNode(svg, true));
  $('totp-secret').textContent = result.body.secret;
  $('totp-enrol').hidden = false;
  $('totp-confirm-code').focus();
}

async function confirmTotp() {
  const totp = $('totp-confirm-code').value.trim();
  $('totp-confirm-code').value = '';
  const result = await api('POST', '/api/v1/mfa/totp/confirm/', { totp });
  if (result.status !== 200) {
    say('POST /api/v1/mfa/totp/confirm/ failed: ' + problem(result), 'error');
    return;
  }
  $('totp-enrol').hidden = true;
  $('totp-qr').replaceChildren();
  $('totp-secret').textContent = '';
  showRecoveryCodes(result.body.recovery_codes);
  say('Authenticator app added.', 'ok');
  await refreshSecurity();
}

async function addPasskey() {
  say('', '');
  const options = await api('POST', '/api/v1/webauthn/register/options/', { password: currentPassword() });
  if (options.status !== 200) {
    say('POST /api/v1/webauthn/register/options/ failed: ' + problem(options), 'error');
    return;
  }
  const credential = await navigator.credentials.create({ publicKey: creationOptions(options.body) });
  if (!credential) return;
  const result = await api('POST', '/api/v1/webauthn/register/', {
    response: credential.toJSON(),
    name: $('passkey-name').value || undefined,
  });
  if (result.status !== 200) {
    say('POST /api/v1/webauthn/register/ failed: ' + problem(result), 'error');
    return;
  }
  showRecoveryCodes(result.body.recovery_codes);
  say('Passkey "' + result.body.name + '" added.', 'ok');
  await refreshSecurity();
}

const shown = (action) => () => action().catch((e) => say(String(e), 'error'));
onClick('totp-setup', shown(startTotp));
onClick('passkey-add', shown(addPasskey));
$('totp-confirm-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void shown(confirmTotp)();
});

document.addEventListener('portal:signed-in', () => void refreshSecurity().catch((e) => say(String(e), 'error')));
document.addEventListener('portal:signed-out', () => {
  // Nothing of one user's enrolment stays on the page for the next.
  $('totp-enrol').hidden = true;
  $('totp-qr').replaceChildren();
  $('totp-secret').textContent = '';
  $('recovery').hidden = true;
  $('recovery-codes').replaceChildren();
  say('', '');
});
`;
