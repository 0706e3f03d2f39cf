import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type {
  LoginEvents,
  MfaOutcome,
  SessionCheckObserver,
  SessionCheckOutcome,
} from '../../application/login-events.js';
import { LOGIN_DENIAL_REASONS } from '../../domain/login/login-policy.js';
import type { MfaMethod } from '../../domain/mfa/mfa-factor.js';
import { SESSION_END_REASONS } from '../../domain/session/session-end.js';
import { KEY_REFUSALS } from '../openid/jwks-admission.js';
import type { KeyUseObserver } from '../openid/jwt-signature-verifier.js';
import type { SqlClient } from '../sql/sql-client.js';
import { observedSqlClient } from './observed-sql-client.js';

/** Endpoints of the OpenID provider, as the provider adapter names them. */
export type OpenIdEndpoint = 'discovery' | 'token' | 'jwks' | 'revocation' | 'userinfo' | 'other';
export type OpenIdCallOutcome = 'ok' | 'client_error' | 'server_error' | 'timeout' | 'network_error';

const OPENID_ENDPOINTS: ReadonlySet<string> = new Set<OpenIdEndpoint>([
  'discovery',
  'token',
  'jwks',
  'revocation',
  'userinfo',
  'other',
]);
const OPENID_OUTCOMES: ReadonlySet<string> = new Set<OpenIdCallOutcome>([
  'ok',
  'client_error',
  'server_error',
  'timeout',
  'network_error',
]);

const SESSION_CHECK_OUTCOMES: readonly SessionCheckOutcome[] = [
  'ok',
  'missing',
  'invalid',
  'expired',
  'password_expired',
  'mfa_pending',
];

/**
 * The only values the `reason` label takes: the login policy's reason codes and the error codes
 * a single sign-on login fails with, lower-cased. Anything else is counted as `other`, so a label
 * can never carry a username, an id or free text.
 */
export const LOGIN_FAILURE_REASONS: ReadonlySet<string> = new Set([
  'authentication_failed',
  'sso_invalid',
  'sso_invalid_username',
  'sso_multi_groups',
  'sso_invalid_groupid_and_username',
  'sso_refused',
  'sso_unreachable',
  'invalid_request',
  'service_unavailable',
]);

const KEY_REASONS: ReadonlySet<string> = new Set(KEY_REFUSALS);

/** Every way a session ends is a reason of its own (`SessionEnding`); anything else is `other`. */
const MFA_METHODS: readonly MfaMethod[] = ['totp', 'webauthn', 'recovery_code'];
const MFA_OUTCOMES: readonly MfaOutcome[] = ['success', 'invalid', 'throttled'];

const END_REASONS: ReadonlySet<string> = new Set(SESSION_END_REASONS);

/** Statement names are constants in the repositories; anything else is `other`. */
const STATEMENT_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export interface GatehouseMetricsOptions {
  /** Node.js process metrics (CPU, memory, event loop, GC) on this registry. Default true. */
  processMetrics?: boolean;
}

/**
 * Prometheus metrics of one Gatehouse instance, on a private registry (never prom-client's global
 * one, so several instances can live in one process). The application knows nothing of it: it
 * observes through LoginEvents, SessionCheckObserver, the SqlClient port and the OpenID provider
 * adapter's observer option, which the composition root wires to the methods below.
 */
export class GatehouseMetrics {
  readonly registry = new Registry();
  readonly #logins: Counter<'method' | 'outcome' | 'reason'>;
  readonly #throttled: Counter<'operation'>;
  readonly #passwordChanges: Counter<'outcome'>;
  readonly #mfa: Counter<'method' | 'outcome'>;
  readonly #sessionsEnded: Counter<'reason'>;
  readonly #clientAborts: Counter;
  readonly #sessionChecks: Record<SessionCheckOutcome, { inc(): void }>;
  readonly #openIdDuration: Histogram<'provider' | 'endpoint' | 'outcome'>;
  readonly #ssoLogins: Counter<'provider' | 'outcome'>;
  readonly #signatureChecks: Counter<'provider'>;
  readonly #keysRefused: Counter<'provider' | 'reason'>;
  readonly #queryDuration: Histogram<'statement' | 'outcome'>;
  readonly #queryChildren = new Map<string, { observe(value: number): void }>();

  constructor(options: GatehouseMetricsOptions = {}) {
    const registers = [this.registry];
    this.#logins = new Counter({
      name: 'gatehouse_logins_total',
      help: 'Login attempts by method (password, sso), outcome (success, failure, throttled) and reason code.',
      labelNames: ['method', 'outcome', 'reason'],
      registers,
    });
    this.#throttled = new Counter({
      name: 'gatehouse_throttled_attempts_total',
      help: 'Attempts refused by a throttle (429), by operation (login, password_change, backchannel_logout).',
      labelNames: ['operation'],
      registers,
    });
    this.#passwordChanges = new Counter({
      name: 'gatehouse_password_changes_total',
      help: 'Password changes by outcome (success, failure: wrong current password).',
      labelNames: ['outcome'],
      registers,
    });
    this.#mfa = new Counter({
      name: 'gatehouse_mfa_total',
      help: 'Second factors checked, by method (totp, webauthn, recovery_code) and outcome (success, invalid, throttled).',
      labelNames: ['method', 'outcome'],
      registers,
    });
    // Every pair from the start (at 0): an alert on invalid codes needs no first occurrence.
    for (const method of MFA_METHODS) {
      for (const outcome of MFA_OUTCOMES) this.#mfa.labels(method, outcome).inc(0);
    }
    this.#sessionsEnded = new Counter({
      name: 'gatehouse_sessions_ended_total',
      help: 'Sessions ended, by reason (logout, revoked, session_limit, idle_timeout, administrator, ...).',
      labelNames: ['reason'],
      registers,
    });
    // Every reason is exposed from the start (at 0), so a rate over it needs no first occurrence.
    for (const reason of SESSION_END_REASONS) this.#sessionsEnded.labels(reason).inc(0);
    this.#clientAborts = new Counter({
      name: 'gatehouse_client_aborts_total',
      help: 'Requests whose client closed the connection before the request was read (logged at info, status 499).',
      registers,
    });
    const sessionChecks = new Counter({
      name: 'gatehouse_session_checks_total',
      help: 'Session checks by outcome (ok, missing, invalid, expired, password_expired).',
      labelNames: ['outcome'],
      registers,
    });
    this.#openIdDuration = new Histogram({
      name: 'gatehouse_oidc_request_duration_seconds',
      help: 'Duration of HTTP requests to OpenID providers, until the response headers, by provider id (default: the environment one), endpoint and outcome.',
      labelNames: ['provider', 'endpoint', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#ssoLogins = new Counter({
      name: 'gatehouse_sso_logins_total',
      help: 'SSO logins by provider id (default: the environment one) and outcome (success, failure), once the redirect URI selected the provider.',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.#signatureChecks = new Counter({
      name: 'gatehouse_sso_signature_checks_total',
      help: 'Signature checks of ID and back-channel logout tokens against one provider key each, by provider id.',
      labelNames: ['provider'],
      registers,
    });
    this.#keysRefused = new Counter({
      name: 'gatehouse_sso_jwks_keys_refused_total',
      help: "Entries of a provider's JWKS left out when it was fetched, by provider id and reason (rsa_modulus, rsa_exponent, private, unusable, not_an_object).",
      labelNames: ['provider', 'reason'],
      registers,
    });
    this.#queryDuration = new Histogram({
      name: 'gatehouse_store_query_duration_seconds',
      help: 'Duration of store statements, by prepared-statement name (else "other") and outcome (ok, error).',
      labelNames: ['statement', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });

    // Series that exist from the start, so rates and alerts work before the first event.
    for (const method of ['password', 'sso']) this.#logins.labels(method, 'success', 'none').inc(0);
    this.#logins.labels('password', 'throttled', 'too_many_attempts').inc(0);
    for (const operation of ['login', 'password_change', 'backchannel_logout'])
      this.#throttled.labels(operation).inc(0);
    // The hot path pays one pre-bound counter increment.
    this.#sessionChecks = Object.fromEntries(
      SESSION_CHECK_OUTCOMES.map((outcome) => {
        const child = sessionChecks.labels(outcome);
        child.inc(0);
        return [outcome, child];
      }),
    ) as Record<SessionCheckOutcome, { inc(): void }>;

    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Counts login events, then hands each to `inner` (the logging adapter, usually). */
  /** One request whose client went away mid-request. */
  readonly clientAborted = (): void => {
    this.#clientAborts.inc();
  };

  loginEvents(inner: LoginEvents): LoginEvents {
    return {
      loginSucceeded: (event) => {
        this.#logins.labels(event.method, 'success', 'none').inc();
        if (event.provider) this.#ssoLogins.labels(event.provider, 'success').inc();
        inner.loginSucceeded(event);
      },
      loginFailed: (event) => {
        // A wrong current password on a password change is reported as a failed password check,
        // but it is not a login.
        if (event.reason === 'current_password_mismatch') this.#passwordChanges.labels('failure').inc();
        else this.#logins.labels(event.method, 'failure', loginReason(event.method, event.reason)).inc();
        if (event.provider) this.#ssoLogins.labels(event.provider, 'failure').inc();
        inner.loginFailed(event);
      },
      loginThrottled: (event) => {
        this.#throttled.labels(event.operation).inc();
        if (event.operation === 'login') {
          this.#logins.labels(event.method, 'throttled', 'too_many_attempts').inc();
        }
        inner.loginThrottled?.(event);
      },
      sessionCookiesAmbiguous: (event) => inner.sessionCookiesAmbiguous?.(event),
      mfaChecked: (event) => {
        this.#mfa.labels(event.method, event.outcome).inc();
        inner.mfaChecked?.(event);
      },
      sessionEnded: (event) => {
        this.#sessionsEnded.labels(END_REASONS.has(event.reason) ? event.reason : 'other').inc(event.count);
        inner.sessionEnded(event);
      },
      passwordChanged: (event) => {
        this.#passwordChanges.labels('success').inc();
        inner.passwordChanged(event);
      },
    };
  }

  readonly sessionChecks: SessionCheckObserver = {
    sessionChecked: (outcome) => this.#sessionChecks[outcome]?.inc(),
  };

  /** For the OpenID provider adapter's `observer` option. */
  readonly observeOpenIdCall = (call: {
    /** The provider's id (registry ids are `[a-z0-9-]`, so a safe label); `default` when left out. */
    provider?: string;
    endpoint: OpenIdEndpoint;
    outcome: OpenIdCallOutcome;
    durationS: number;
  }): void => {
    this.#openIdDuration
      .labels(
        call.provider ?? 'default',
        OPENID_ENDPOINTS.has(call.endpoint) ? call.endpoint : 'other',
        OPENID_OUTCOMES.has(call.outcome) ? call.outcome : 'network_error',
      )
      .observe(call.durationS);
  };

  /** For the OpenID provider adapter's `keyObserver` option, for the provider `provider`. */
  keyUseOf(provider: string): KeyUseObserver {
    const checks = this.#signatureChecks.labels(provider);
    return {
      signatureChecked: () => checks.inc(),
      keyRefused: (reason) =>
        this.#keysRefused.labels(provider, KEY_REASONS.has(reason) ? reason : 'other').inc(),
    };
  }

  /** The same client, every statement timed into gatehouse_store_query_duration_seconds. */
  observeSqlClient(client: SqlClient): SqlClient {
    return observedSqlClient(client, ({ statement, durationS, ok }) => {
      const name = statement && STATEMENT_NAME.test(statement) ? statement : 'other';
      const key = `${name}:${ok ? 'ok' : 'error'}`;
      let child = this.#queryChildren.get(key);
      if (!child) {
        child = this.#queryDuration.labels(name, ok ? 'ok' : 'error');
        this.#queryChildren.set(key, child);
      }
      child.observe(durationS);
    });
  }

  /**
   * Connection pool gauges, read from `stats` at each scrape. Only for a pooled client (pg); the
   * embedded PGlite is one in-process connection with its own queue, so it has none.
   */
  watchPool(stats: () => { total: number; idle: number; waiting: number }): void {
    new Gauge({
      name: 'gatehouse_store_pool_in_use',
      help: 'Store connections checked out of the pool (pg only).',
      registers: [this.registry],
      collect() {
        const current = stats();
        this.set(current.total - current.idle);
      },
    });
    new Gauge({
      name: 'gatehouse_store_pool_waiting',
      help: 'Requests waiting for a store connection (pg only).',
      registers: [this.registry],
      collect() {
        this.set(stats().waiting);
      },
    });
  }

  /**
   * `gatehouse_sso_provider_load_failed{provider}`: 1 for each enabled registered provider this
   * instance could not load, read from `failing` at each scrape (a recovered one disappears).
   * Provider ids are `[a-z0-9-]`, so a safe label; the reason is in the log, never in a label.
   */
  watchProviderLoad(failing: () => Iterable<string>): void {
    new Gauge({
      name: 'gatehouse_sso_provider_load_failed',
      help: 'Registered providers this instance could not load (1 each, by provider id); the reason is logged.',
      labelNames: ['provider'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const provider of failing()) this.labels(provider).set(1);
      },
    });
  }
}

/**
 * The login policy's reasons (unknown user, wrong password, no password, disabled, level not
 * allowed) are one label, as they are one answer to the client: a metric must not tell an observer
 * which usernames exist (ASVS 6.3.8). Logs and the audit trail, read by operators only, keep the
 * exact reason.
 */
const LOGIN_POLICY_REASONS: ReadonlySet<string> = new Set(LOGIN_DENIAL_REASONS);

const POLICY_REASONS: Readonly<Record<'password' | 'sso', string>> = {
  password: 'authentication_failed',
  sso: 'sso_invalid_groupid_and_username',
};

function loginReason(method: 'password' | 'sso', reason: string): string {
  const normalised = reason.toLowerCase();
  if (LOGIN_POLICY_REASONS.has(normalised)) return POLICY_REASONS[method];
  return LOGIN_FAILURE_REASONS.has(normalised) ? normalised : 'other';
}
