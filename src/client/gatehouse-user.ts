/**
 * The five user levels of the interface (end user, department, group, tenant and system admin),
 * the only ones a granting answer may carry. gatehouse-client ships without the service, so it
 * holds its own copy; a test keeps it equal to the domain's `ALL_USER_LEVELS`.
 */
export const GATEHOUSE_USER_LEVELS: readonly number[] = [0, 4, 8, 12, 16];

/**
 * Who a live session belongs to: the one small user object every guard puts on the request,
 * embedded in the service or in gatehouse-client (contract 9). Never a stored record, never a hash.
 */
export interface GatehouseUser {
  userId: string;
  username: string;
  /** 0, 4, 8, 12 or 16 (contract 5). */
  userLevel: number;
  /** Present only when the user has one. */
  tenantId?: string;
  /** Present only when the user has one. */
  groupId?: string;
  /**
   * How the session was made (contract 3b): RFC 8176 method references such as `pwd`, `otp`,
   * `hwk`, `recovery`, `mfa`, `sso` (plus an SSO provider's own). Every guard of a service with
   * second factors sets it; gatehouse-client reads it from `Gatehouse-Auth-Methods`, and leaves it
   * out only when an older service sent none.
   */
  authMethods?: string[];
  /** When the user last proved who they are, in Unix seconds (`Gatehouse-Auth-Time`); as above. */
  authTime?: number;
}
