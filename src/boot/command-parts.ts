import type { Writable } from 'node:stream';
import type { Container } from 'inversify';
import { createLogger } from '../adapters/logging/logger.js';
import type { CommandParts, OpenedCommandParts } from '../cli/command-parts.js';
import type { Config } from './config/config.js';
import { openServiceContainer } from './service-container.js';
import { TOKENS } from './tokens.js';

/**
 * The `gatehouse` command's parts, from the service's container (Kratos's registry, which the
 * maintenance commands build too): the same use cases, store and session ending as the service.
 */
export function commandPartsOf(
  container: Container,
  config: Config,
  applied: readonly string[],
): CommandParts {
  const providers = container.get(TOKENS.AdminProviders);
  const probe = container.get(TOKENS.ProviderProbe);
  return {
    config,
    applied,
    users: container.get(TOKENS.AdminUsers),
    directory: container.get(TOKENS.AdminDirectory),
    importer: container.get(TOKENS.ImportUsers),
    audit: container.get(TOKENS.AdminAudit),
    providers,
    async probe(id) {
      const provider = await providers.show(id);
      return probe({
        issuer: provider.issuer,
        idTokenAlg: provider.idTokenAlg,
        timeoutMs: config.sso.providerTimeoutMs,
        allowInsecureHttp: config.sso.allowInsecureHttp,
        endpointOrigins: config.sso.endpointOrigins,
      });
    },
  };
}

/**
 * Opens the store where the configuration says (migrating it) and the container over it, as the
 * service does; the sessions a command ends are logged as the service logs its own, to `log`.
 */
export async function openCommandParts(config: Config, log: Writable): Promise<OpenedCommandParts> {
  const { container, applied } = await openServiceContainer({
    config,
    logger: createLogger(config.logLevel, log),
  });
  const store = container.get(TOKENS.Store);
  return { ...commandPartsOf(container, config, applied), close: () => store.close() };
}
