/**
 * Secrets the service makes for itself (the key that signs device proofs), kept in the shared
 * store so every instance holds the same one and a restart keeps it.
 */
export interface ServiceSecrets {
  /**
   * The secret called `name`. The first call anywhere stores `candidate` (fresh random bytes);
   * every call, on every instance, concurrent or not, returns the one stored.
   */
  obtain(name: string, candidate: Uint8Array): Promise<Uint8Array>;
}
