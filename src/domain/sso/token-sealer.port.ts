/**
 * Encrypts provider tokens kept with a session (contract 6: secrets among them are encrypted at
 * rest). `open` returns null for anything it cannot decrypt (another key, tampering).
 */
export interface TokenSealer {
  seal(plain: string): string;
  open(sealed: string): string | null;
}
