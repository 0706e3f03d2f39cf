/**
 * Secrets the service makes for itself (the key that signs device proofs), kept in the shared
 * store so every instance holds the same one and a restart keeps it. The store keeps bytes as it
 * is given them: how a secret is protected at rest is decided above it (`KeptSecret`).
 */
export interface ServiceSecrets {
  /**
   * The secret called `name`. The first call anywhere stores `candidate` (fresh random bytes);
   * every call, on every instance, concurrent or not, returns the one stored.
   */
  obtain(name: string, candidate: Uint8Array): Promise<Uint8Array>;
  /**
   * Stores `next` in place of `name`'s value if that value is still `current` (compare-and-set):
   * a value another instance wrote meanwhile is never overwritten with one made from an older read.
   */
  replace(name: string, current: Uint8Array, next: Uint8Array): Promise<void>;
}
