import type { AdminAudit } from '../application/admin/admin-audit.js';
import type { AdminDirectory } from '../application/admin/admin-directory.js';
import type { AdminUsers } from '../application/admin/admin-users.js';
import type { ImportUsers } from '../application/admin/import-users.js';
import type { Config } from '../boot/config/config.js';
import type { ProviderCommandContext } from './provider-command.js';

/** What a plan runs against: the administration use cases of the service's container. */
export interface CommandContext {
  config: Config;
  applied: readonly string[];
  users: AdminUsers;
  directory: AdminDirectory;
  importer: ImportUsers;
  audit: AdminAudit;
  providers: ProviderCommandContext;
  out(line: string): void;
}

export interface Plan {
  /** Read a password from standard input (for this account label) before the store opens. */
  passwordFor?: string;
  /** Read these secrets from standard input, one line each, in this order (by label). */
  secretsFor?: readonly string[];
  /** The file the command reads (`import FILE`): read where the command runs, given to prepare. */
  reads?: string;
  /** Work on that file that needs neither the store nor a password (parsing an import file). */
  prepare?: (content: string) => Promise<void>;
  run(context: CommandContext, password: string | null, secrets: readonly string[]): Promise<void>;
}
