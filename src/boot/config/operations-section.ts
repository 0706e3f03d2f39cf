import { z } from 'zod';
import { bool, int } from './variables.js';

/** Running the service: its log, its first administrator, and what it keeps and purges. */
export const operationsVariables = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BOOTSTRAP_ADMIN: bool.default(true),
  BOOTSTRAP_PASSWORD_FILE: z.string().min(1).default('./gatehouse-admin-password'),
  AUDIT_RETENTION_DAYS: int(0, 36_500).default(90),
  PURGE_INTERVAL_S: int(0, 86_400).default(300),
  PURGE_BATCH_SIZE: int(1, 100_000).default(1000),
});

export interface OperationsConfig {
  logLevel: z.infer<typeof operationsVariables>['LOG_LEVEL'];
  bootstrapAdmin: boolean;
  /** Where the bootstrap administrator's one-time password goes when stdout is not a terminal. */
  bootstrapPasswordFile: string;
  /** Audit events are kept this many days (0: for ever). */
  audit: { retentionDays: number };
  /** The periodic purge of dead sessions, stale throttling rows and old audit events (0: off). */
  purge: { intervalS: number; batchSize: number };
}

export function operationsSection(env: z.infer<typeof operationsVariables>) {
  return {
    problems: [] as string[],
    build: (): OperationsConfig => ({
      logLevel: env.LOG_LEVEL,
      bootstrapAdmin: env.BOOTSTRAP_ADMIN,
      bootstrapPasswordFile: env.BOOTSTRAP_PASSWORD_FILE,
      audit: { retentionDays: env.AUDIT_RETENTION_DAYS },
      purge: { intervalS: env.PURGE_INTERVAL_S, batchSize: env.PURGE_BATCH_SIZE },
    }),
  };
}
