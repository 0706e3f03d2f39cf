/**
 * What an operator would do for each demo customer before its users log in: its tenant, groups
 * and users in the directory, then its provider in the registry through the same use case as
 * `gatehouse provider add` (secrets sealed with TOKEN_ENCRYPTION_KEY, the change audited).
 */
import type { AdminProviders } from '../../src/application/admin/admin-providers.js';
import type { ServiceGatehouse as Gatehouse } from '../../src/boot/gatehouse.js';
import { TOKENS } from '../../src/boot/tokens.js';
import { EMPTY_ATTRIBUTES } from '../../src/domain/user/user.js';
import type { DemoCustomer } from './customers.js';

/** Where a customer's provider runs, as the playground started it. */
export interface ProviderEndpoint {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const ignoreConflict = (error: unknown) => {
  // A kept data directory (DEV_SSO_DATA_DIR) already has the demo rows.
  if ((error as { code?: string }).code !== 'CONFLICT') throw error;
};

export async function seedCustomerDirectory(gatehouse: Gatehouse, customer: DemoCustomer): Promise<void> {
  const { store } = gatehouse;
  await store.directory.addTenant(customer.tenant.id, customer.tenant.name).catch(ignoreConflict);
  for (const group of customer.groups) {
    await store.directory.addGroup(group.id, customer.tenant.id, group.name).catch(ignoreConflict);
  }
  for (const user of customer.users) {
    await store.users
      .create(
        {
          ...EMPTY_ATTRIBUTES,
          ...user.attributes,
          userId: `u-${user.username}`,
          username: user.username,
          userLevel: user.userLevel,
          tenantId: customer.tenant.id,
          groupId: user.groupId,
          backendName: null,
          // Single sign-on only: no password.
          passwordHash: null,
          mustChangePassword: false,
        },
        new Date(),
      )
      .catch(ignoreConflict);
  }
}

/** The provider administration of this deployment, with the rules the `gatehouse provider` command applies. */
export function adminProviders(gatehouse: Gatehouse): AdminProviders {
  return gatehouse.container.get(TOKENS.AdminProviders);
}

/**
 * Registers the customer's provider, limited to its tenant. In a kept data directory it is there
 * already: updated when its issuer is the same (the portal's port, hence the redirect URI, may
 * have moved); offboarded and registered again when the provider's port moved, since accounts
 * bound to the old issuer would otherwise be refused as bound elsewhere.
 */
export async function registerCustomerProvider(
  admin: AdminProviders,
  customer: DemoCustomer,
  endpoint: ProviderEndpoint,
  levels: readonly number[],
): Promise<void> {
  const settings = {
    issuer: endpoint.issuer,
    clientId: endpoint.clientId,
    clientAuth: 'client_secret_basic' as const,
    redirectUris: [endpoint.redirectUri],
    tenants: [customer.tenant.id],
    interpreter: customer.interpreter,
    levels,
    // The portal sends a PKCE S256 challenge; Gatehouse insists on its verifier.
    requirePkce: true,
    idTokenAlg: customer.idTokenAlg,
    requireMfa: false,
    acrValues: [],
  };
  const secrets = { clientSecret: endpoint.clientSecret, settings: customer.settings };
  const known = (await admin.list()).find((provider) => provider.id === customer.id);
  if (known?.issuer === endpoint.issuer) {
    await admin.update(customer.id, { settings, secrets });
    return;
  }
  if (known) {
    await admin.disable(customer.id);
    await admin.remove(customer.id);
  }
  await admin.add({ id: customer.id, ...settings }, secrets);
}
