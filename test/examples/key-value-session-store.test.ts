/**
 * The worked example of docs/stores.md, proven as a team would prove its own store: the testing
 * kit's contract suites, over a key/value database (here one in memory, with expiry).
 */
import { sessionStoreContract, throttleStoreContract } from '../../src/testing/stores.js';
import { type KeyValue, KeyValueSessionStore } from './key-value-session-store.js';
import { KeyValueThrottleStore } from './key-value-throttle-store.js';

/** A key/value database in memory: each value forgotten at its expiry. */
function memoryKeyValue(): KeyValue {
  const values = new Map<string, { value: string; expiresAt: Date | null }>();
  const live = (key: string) => {
    const entry = values.get(key);
    if (entry?.expiresAt && entry.expiresAt.getTime() <= Date.now()) values.delete(key);
    return values.get(key) ?? null;
  };
  return {
    get: async (key) => live(key)?.value ?? null,
    set: async (key, value, expiresAt) => {
      values.set(key, { value, expiresAt });
    },
    delete: async (key) => live(key) !== null && values.delete(key),
  };
}

sessionStoreContract({
  name: 'docs/stores.md example',
  declares: [],
  open: async () => ({ sessions: new KeyValueSessionStore(memoryKeyValue()) }),
});

throttleStoreContract({
  name: 'docs/stores.md example',
  declares: [],
  open: async () => ({ throttle: new KeyValueThrottleStore(memoryKeyValue()) }),
});
