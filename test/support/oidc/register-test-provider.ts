import type { ProviderSettings, RegisteredProvider } from '../../../src/domain/sso/provider-registration.js';
import type {
  ProviderRegistry,
  RegistryWrite,
  RegistryWriteContext,
} from '../../../src/domain/sso/provider-registry.port.js';
import { providerSettings } from '../../contract/provider-registry.contract.js';
import type { TestProvider } from './test-provider.js';

export interface TestProviderRegistration extends Partial<ProviderSettings> {
  id: string;
  /** The interpreter's settings (its secrets); none unless given. */
  interpreterSettings?: Record<string, string>;
}

/**
 * Registers a running test provider as a customer's provider: its issuer, and the client and
 * secret it issued to Gatehouse, so that Gatehouse can exchange its codes. The rest of the
 * registration is `providerSettings`' defaults but for the fields given.
 */
export function registerTestProvider(
  registry: ProviderRegistry,
  tp: TestProvider,
  { id, interpreterSettings = {}, ...fields }: TestProviderRegistration,
  context: RegistryWriteContext,
): Promise<RegistryWrite<RegisteredProvider>> {
  const { clientId, clientSecret } = tp.clients.gatehouse;
  return registry.add(
    providerSettings(id, { issuer: tp.issuer, clientId, ...fields }),
    { clientSecret: clientSecret!, settings: interpreterSettings },
    context,
  );
}
