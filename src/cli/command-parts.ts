import type { AdminAudit } from '../application/admin/admin-audit.js';
import type { AdminDirectory } from '../application/admin/admin-directory.js';
import type { AdminProviders } from '../application/admin/admin-providers.js';
import type { AdminUsers } from '../application/admin/admin-users.js';
import type { ImportUsers } from '../application/admin/import-users.js';
import type { Config } from '../boot/config/config.js';
import type { ProbeReport } from './provider-command.js';

/**
 * What a command runs on, handed in by the wiring room (src/boot/command-parts.ts) from the
 * service's own container: the same use cases, so a command ends sessions the one way. The
 * command names no store, container or adapter.
 */
export interface CommandParts {
  config: Config;
  /** Migrations applied while opening (none when the running service runs the command). */
  applied: readonly string[];
  users: AdminUsers;
  directory: AdminDirectory;
  importer: ImportUsers;
  audit: AdminAudit;
  providers: AdminProviders;
  /** Tells whether a registered provider's discovery and keys can be fetched (`provider test`). */
  probe(id: string): Promise<ProbeReport>;
}

/** Parts opened by the command itself, which it closes when done. */
export interface OpenedCommandParts extends CommandParts {
  close(): Promise<void>;
}
