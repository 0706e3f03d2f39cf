/**
 * What a test service's audit log holds for one user, read through the service's own store: the
 * trail a test compares with what its requests should have recorded.
 */
import type { AuditRecord } from '../../src/domain/audit/audit-event.js';
import type { TestServer } from './test-server.js';

/** Enough for any one test's scenario: the whole trail of a user a test made for itself. */
const WHOLE_TRAIL = 1000;

/** Every audit record of `userId` (the latest 1,000), oldest first. */
export function auditTrailOf(server: TestServer, userId: string): Promise<AuditRecord[]> {
  return server.gatehouse.store.audit.listForUser(userId, { limit: WHOLE_TRAIL });
}
