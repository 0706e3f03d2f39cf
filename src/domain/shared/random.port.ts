/** Randomness is injected; production uses the OS CSPRNG (src/adapters/crypto/node-random.ts). */
export interface Random {
  bytes(length: number): Uint8Array;
}
