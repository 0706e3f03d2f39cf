/**
 * The module SESSION_STORE_MODULE names: its default export, called with the environment, opens
 * the team's store. Here the database is a folder of files that every process shares
 * (KEY_VALUE_DIR); a team opens its own database's client instead.
 */
import type { SessionSide } from '../../src/testing/store-runtime.js';
import { fileKeyValue } from './file-key-value.js';
import { KeyValueSessionStore } from './key-value-session-store.js';
import { KeyValueThrottleStore } from './key-value-throttle-store.js';

export default async function openSessionStore(
  environment: Readonly<Record<string, string>>,
): Promise<SessionSide> {
  const folder = environment.KEY_VALUE_DIR;
  if (!folder) throw new Error('KEY_VALUE_DIR is not set');
  const kv = await fileKeyValue(folder);
  return {
    sessions: new KeyValueSessionStore(kv),
    throttle: new KeyValueThrottleStore(kv),
    // Optional: /readyz asks it, beside the database.
    isReady: async () => kv.answers(),
    close: async () => undefined,
  };
}
