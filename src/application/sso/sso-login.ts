import { auditAccount, auditEvent } from '../../domain/audit/audit-event.js';
import type { AddressThrottle } from '../../domain/login/address-throttle.js';
import { type LoginDenialReason, LoginPolicy } from '../../domain/login/login-policy.js';
import { type Clock, systemClock } from '../../domain/shared/clock.port.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import type { ValidatedTokenSet } from '../../domain/sso/openid-provider.port.js';
import { checkSsoIdentity } from '../../domain/sso/sso-identity.js';
import { interpretationRefusal } from '../../domain/sso/sso-interpretation-error.js';
import { ssoSessionAuth } from '../../domain/sso/sso-session-auth.js';
import { type TokenSealer, tokenBinding } from '../../domain/sso/token-sealer.port.js';
import type { Store } from '../../domain/store.port.js';
import type { ProviderAccount, User } from '../../domain/user/user.js';
import type { LoginEvents } from '../login-events.js';
import type { ClientInfo, LoginResult } from '../login-result.js';
import type { SessionEnder, SessionEnding } from '../session-ending.js';
import type { SessionIssuer } from '../session-issuer.js';
import type { ServedProvider, SsoProviders } from './sso-providers.js';

export interface SsoLoginInput {
  nonce: string;
  authorizationCode: string;
  redirectUri: string;
  codeVerifier?: string;
  /** The session cookie values the login was sent with: each session they name ends (fixation defence). */
  presentedTokens: readonly string[];
  client: ClientInfo;
}

/**
 * `POST /api/v1/openid/login/`: the second step of the OpenID Connect code flow. The request's
 * `redirect_uri` selects the provider (contract 6a); that provider's adapter exchanges and
 * validates; its customer's interpreter maps the tokens to (username, group); the local user must
 * exist in that group, in one of the provider's tenants, with a level the provider allows.
 */
export class SsoLogin {
  private readonly policy = LoginPolicy.forSsoLogin();
  /** Failures already reported to `events` (so each refused login is reported once). */
  private readonly reported = new WeakSet<DomainError>();

  constructor(
    private readonly store: Store,
    private readonly providers: SsoProviders,
    private readonly sealer: TokenSealer,
    private readonly issuer: SessionIssuer,
    private readonly ending: SessionEnding,
    private readonly events: LoginEvents,
    private readonly clock: Clock = systemClock,
    /** Failed SSO logins per client address and provider; none when not given. */
    private readonly throttle: AddressThrottle | null = null,
    /** SESSION_ABSOLUTE_TIMEOUT_S: how far back a token's `auth_time` is believed. */
    private readonly sessionLifetimeS = 43_200,
  ) {}

  async execute(input: SsoLoginInput): Promise<LoginResult> {
    // The exact redirect URI names the provider; no other is ever called with this code.
    const selected = this.providers.select(input.redirectUri);
    if (!selected) {
      throw new DomainError('INVALID_REQUEST', 'redirect_uri is not one of the allowed redirect URIs.', {
        errors: [{ path: 'redirect_uri', message: 'not allowed' }],
      });
    }
    if (selected.rules.requirePkce && !input.codeVerifier) {
      throw new DomainError('INVALID_REQUEST', 'code_verifier is required: this service requires PKCE.', {
        errors: [{ path: 'code_verifier', message: 'is required' }],
      });
    }
    // Before any call to the provider: a client address that keeps sending codes that fail is
    // stopped here, so junk codes cannot get this service rate-limited by the customer's provider.
    // Counted per provider: one customer's provider failing (an outage, bad tokens) spends only
    // that provider's budget, never another customer's users' behind the same address.
    const ticket = await this.throttle?.reserve(
      input.client.clientAddress,
      this.clock.now(),
      selected.rules.id,
    );
    try {
      const result = await this.login(input, selected);
      await this.throttle?.succeeded(ticket ?? null);
      return result;
    } catch (error) {
      // A refusal by the login policy was already reported, with its reason and user.
      if (isDomainError(error) && !this.reported.has(error)) {
        this.events.loginFailed({
          method: 'sso',
          reason: error.code,
          userId: null,
          provider: selected.rules.id,
        });
        // With the store down there is nowhere to write; the answer is the original error.
        if (error.code !== 'SERVICE_UNAVAILABLE') {
          await this.recordFailure(input, error.code.toLowerCase(), null, selected.rules.id).catch(
            () => undefined,
          );
        }
      }
      throw error;
    }
  }

  private async login(input: SsoLoginInput, selected: ServedProvider): Promise<LoginResult> {
    const { rules, parts } = selected;
    const tokens = await parts.provider.exchangeCode({
      authorizationCode: input.authorizationCode,
      redirectUri: input.redirectUri,
      nonce: input.nonce,
      ...(input.codeVerifier ? { codeVerifier: input.codeVerifier } : {}),
    });
    let identity: unknown;
    try {
      identity = await parts.interpreter.interpret(tokens);
    } catch (error) {
      const refusal = interpretationRefusal(error);
      if (refusal) throw refusal;
      // A customer interpreter's own bug must not become a 500 or leak its message.
      throw new DomainError('SSO_INVALID', 'The tokens could not be interpreted.', { cause: error });
    }
    // The provider's second factor (contract 3b) is checked before the user is looked up: a token
    // that does not vouch for one makes no session for anyone.
    const auth = ssoSessionAuth(tokens.claims, rules, this.clock.now(), this.sessionLifetimeS);
    if (auth.refused) return this.refuseWithoutSecondFactor(input, rules.id);
    const { username, groupId } = checkSsoIdentity(identity);
    const user = await this.store.users.findByGroupAndUsername(groupId, username);
    const decision = this.policy.evaluate({
      method: 'sso',
      user,
      ssoUserLevels: rules.levels,
      ssoTenants: rules.tenants,
    });
    if (!decision.allowed) return this.refuse(input, decision.reason, user, rules.id);
    const account = user!;
    // The username claim is not a stable identifier (OIDC Core 5.7): the user is bound to the
    // provider account (provider, iss, sub) of its first SSO login, and only that account logs in
    // as it. Checked again under the row lock in the transaction below.
    const providerAccount = { provider: rules.id, issuer: tokens.issuer, subject: tokens.subject };
    if (account.ssoIdentity && !sameProviderAccount(account.ssoIdentity, providerAccount)) {
      return this.refuse(input, 'sso_account_mismatch', account, rules.id);
    }
    const mismatch = new DomainError('SSO_INVALID_GROUPID_AND_USERNAME', 'provider account mismatch');
    // The binding, the session and its audit record commit together.
    const result = await this.ending
      .unit(async (repositories, end) => {
        if ((await repositories.users.bindProviderAccount(account.userId, providerAccount)) === 'refused') {
          throw mismatch;
        }
        return this.issueSession(end, input, account, tokens, rules.id, auth);
      })
      .catch((error: unknown) => {
        if (error === mismatch) return this.refuse(input, 'sso_account_mismatch', account, rules.id);
        throw error;
      });
    this.events.loginSucceeded({ method: 'sso', userId: account.userId, provider: rules.id });
    return result;
  }

  /** Refuses the login with the one code every failed match gets; reported and audited once. */
  private async refuse(
    input: SsoLoginInput,
    reason: LoginDenialReason,
    user: User | null,
    providerId: string,
  ): Promise<never> {
    this.events.loginFailed({ method: 'sso', reason, userId: user?.userId ?? null, provider: providerId });
    await this.recordFailure(input, reason, user, providerId);
    const refusal = new DomainError(
      'SSO_INVALID_GROUPID_AND_USERNAME',
      'No user matches the group and username returned by the OpenID provider, or that user may not use single sign-on.',
    );
    this.reported.add(refusal);
    throw refusal;
  }

  /**
   * The provider requires a second factor and the token vouched for none: `SSO_INVALID` as for
   * any token the service cannot accept, audited with its own reason so an operator sees why.
   */
  private async refuseWithoutSecondFactor(input: SsoLoginInput, providerId: string): Promise<never> {
    const refusal = new DomainError(
      'SSO_INVALID',
      'The OpenID provider did not vouch for a second factor (amr or acr), which this service requires.',
    );
    this.events.loginFailed({ method: 'sso', reason: refusal.code, userId: null, provider: providerId });
    await this.recordFailure(input, 'sso_mfa_missing', null, providerId);
    this.reported.add(refusal);
    throw refusal;
  }

  private async issueSession(
    end: SessionEnder,
    input: SsoLoginInput,
    account: User,
    tokens: ValidatedTokenSet,
    providerId: string,
    auth: { amr: readonly string[]; authTime: Date },
  ): Promise<LoginResult> {
    const ref = {
      provider: providerId,
      issuer: tokens.issuer,
      subject: tokens.subject,
      sid: tokens.sid ?? null,
    };
    const issued = await this.issuer.issue(end, {
      user: account,
      method: 'sso',
      presentedTokens: input.presentedTokens,
      client: input.client,
      auth: { stage: 'full', amr: auth.amr, authTime: auth.authTime },
      sso: {
        ...ref,
        idToken: tokens.idToken,
        accessTokenSealed: tokens.accessToken
          ? this.sealer.seal(tokens.accessToken, tokenBinding('access_token', ref))
          : null,
        refreshTokenSealed: tokens.refreshToken
          ? this.sealer.seal(tokens.refreshToken, tokenBinding('refresh_token', ref))
          : null,
      },
    });
    await end.repositories.audit.record(
      auditEvent({
        occurredAt: this.clock.now(),
        event: 'login',
        actor: 'user',
        method: 'sso',
        sessionHandle: issued.sessionHandle,
        clientAddress: input.client.clientAddress,
        providerId,
        ...auditAccount(account),
      }),
    );
    return issued;
  }

  /** A refused SSO login: nothing else changes, so the record is written on its own. */
  private recordFailure(
    input: SsoLoginInput,
    reason: string,
    user: User | null,
    providerId: string,
  ): Promise<void> {
    return this.store.audit.record(
      auditEvent({
        occurredAt: this.clock.now(),
        event: 'login',
        outcome: 'failure',
        reason,
        actor: 'user',
        method: 'sso',
        clientAddress: input.client.clientAddress,
        providerId,
        ...auditAccount(user),
      }),
    );
  }
}

function sameProviderAccount(a: ProviderAccount, b: ProviderAccount): boolean {
  return a.provider === b.provider && a.issuer === b.issuer && a.subject === b.subject;
}
