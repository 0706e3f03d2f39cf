/**
 * The back-channel logout tokens already honoured, by issuer and `jti`: a captured logout token
 * posted again is refused. Shared by every instance (it lives in the store), and each entry kept
 * only while its token could still be accepted.
 */
export interface SeenLogoutTokens {
  /**
   * Records the token as used until `until`. False when it was already recorded and that record
   * has not expired: a replay. Atomic, so of two instances receiving the same token one wins.
   */
  firstUse(issuer: string, jti: string, until: Date, now: Date): Promise<boolean>;
  /** Deletes up to `limit` records that expired before `now`; returns how many. */
  purgeExpired(now: Date, limit: number): Promise<number>;
}
