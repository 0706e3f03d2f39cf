import type { ValidatedTokenSet } from './openid-provider.port.js';

/**
 * Per-customer mapping from a validated token set to a local identity. Token contents have no
 * standard form (spec section 1), so each customer may ship its own interpreter package.
 *
 * Return `{ username, groupIds }`; the service refuses with SSO_INVALID_USERNAME when the username
 * is empty and SSO_MULTI_GROUPS when more than one group id is given. An interpreter may also
 * throw an SsoInterpretationError with one of the SSO codes itself.
 */
export interface SsoIdentity {
  username: string;
  groupIds: string[];
}

export interface SsoTokenInterpreter {
  /** A short name for logs and the start-up check, e.g. "claims" or "acme-corp". */
  readonly name: string;
  interpret(tokens: ValidatedTokenSet): SsoIdentity | Promise<SsoIdentity>;
  /**
   * Optional: providers without RFC 7009 revocation may need a server-side end-session call.
   * Called after the local session has ended; throw SsoInterpretationError('SSO_REFUSED' |
   * 'SSO_UNREACHABLE') on failure.
   */
  endProviderSession?(tokens: {
    idToken?: string;
    accessToken?: string;
    refreshToken?: string;
  }): Promise<void>;
}

/** Settings the service passes to an interpreter factory. */
export interface SsoInterpreterSettings {
  usernameClaim: string;
  groupClaim: string;
  /**
   * The package's own settings: each `SSO_INTERPRETER_<NAME>` variable of the service, as
   * `<NAME>` (`SSO_INTERPRETER_ACME_CLAIMS_NAMESPACE` is `env.ACME_CLAIMS_NAMESPACE`). Nothing else
   * of the service's environment reaches a package.
   */
  env: Readonly<Record<string, string | undefined>>;
  /** The time-out the service gives each call to the provider (OIDC_TIMEOUT_MS), for the package's own calls. */
  timeoutMs: number;
}

/** What a per-customer package exports (as `default` or `createInterpreter`). */
export type SsoTokenInterpreterFactory = (
  settings: SsoInterpreterSettings,
) => SsoTokenInterpreter | Promise<SsoTokenInterpreter>;

/** The codes an SSO login can be refused with (an interpreter may raise any of them). */
export const SSO_INTERPRETATION_CODES = [
  'SSO_INVALID',
  'SSO_INVALID_USERNAME',
  'SSO_MULTI_GROUPS',
  'SSO_INVALID_GROUPID_AND_USERNAME',
  'SSO_REFUSED',
  'SSO_UNREACHABLE',
] as const;

export type SsoInterpretationCode = (typeof SSO_INTERPRETATION_CODES)[number];
