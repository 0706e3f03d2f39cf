/** A proof, and how long the browser should keep it (its cookie's Max-Age). */
export interface IssuedDeviceProof {
  proof: string;
  lifetimeS: number;
}

/**
 * Device proofs (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * logged in successfully as a user carries a proof of it, so that an account-level block made by
 * someone else's guesses does not lock the real user out. A proof is bound to one canonical
 * username and names one device, which has a budget of its own.
 */
export interface DeviceProofs {
  /** A new proof that this browser logged in as the user with this canonical username. */
  issue(usernameKey: string, now: Date): Promise<IssuedDeviceProof>;
  /**
   * The device the proof names, when this service issued it for this canonical username; null
   * for anything else (forged, altered, another user's, expired, malformed), never an error.
   */
  recognise(proof: string, usernameKey: string, now: Date): Promise<string | null>;
}
