import type { TestProviderRegistration } from './register-test-provider.js';

/**
 * The two customers the multi-provider suites register, each limited to its own tenant; the
 * suite adds the redirect URIs (they depend on its set-up).
 */

/** Acme: its own interpreter (the example package), reading its claims under the `acme` namespace. */
export const ACME_REGISTRATION = {
  id: 'acme',
  tenants: ['t-acme'],
  interpreter: 'acme',
  interpreterSettings: { ACME_CLAIMS_NAMESPACE: 'acme' },
} as const satisfies TestProviderRegistration;

/** Globex: the built-in interpreter, the username in `login_name`, ID tokens signed with ES256. */
export const GLOBEX_REGISTRATION = {
  id: 'globex',
  tenants: ['t-globex'],
  interpreter: 'claims',
  usernameClaim: 'login_name',
  idTokenAlg: 'ES256',
} as const satisfies TestProviderRegistration;
