import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContainerModule } from 'inversify';
import { HttpCore } from '../adapters/http/http-core.js';
import type { Route } from '../adapters/http/route.js';
import { forwardAuthRoutes } from '../adapters/http/routes/forward-auth-routes.js';
import { healthRoutes } from '../adapters/http/routes/health-routes.js';
import { withOpenApiDocument } from '../adapters/http/routes/openapi-routes.js';
import { ownSessionRoutes } from '../adapters/http/routes/own-session-routes.js';
import { sessionRoutes } from '../adapters/http/routes/session-routes.js';
import { ssoRoutes } from '../adapters/http/routes/sso-routes.js';
import type { Logger } from '../adapters/logging/logger.js';
import type { GatehouseMetrics } from '../adapters/metrics/gatehouse-metrics.js';
import { metricsRoutes } from '../adapters/metrics/metrics-routes.js';
import type { ChangePassword } from '../application/change-password.js';
import type { Logout } from '../application/logout.js';
import type { PasswordLogin } from '../application/password-login.js';
import type { SessionAuthenticator } from '../application/session-authenticator.js';
import type { SessionManagement } from '../application/session-management.js';
import type { BackchannelLogout } from '../application/sso/backchannel-logout.js';
import type { ProviderDirectory } from '../application/sso/provider-directory.js';
import type { SsoLogin } from '../application/sso/sso-login.js';
import type { SsoLogout } from '../application/sso/sso-logout.js';
import type { SsoProviderParts } from '../application/sso/sso-providers.js';
import type { Store } from '../domain/store.port.js';
import type { Config, SessionStoreName } from './config/config.js';
import { MFA_ENROLMENT_TOKENS } from './mfa-enrolment-module.js';
import { projectRoot } from './project-root.js';
import { TOKENS } from './tokens.js';

/**
 * /metrics is on the main port only when the operator says so (METRICS_ON_MAIN_PORT): it tells
 * anyone who can reach the API how many logins fail and why.
 */
function metricsOnMainPort(config: Config, metrics: GatehouseMetrics | null): boolean {
  return metrics !== null && config.metrics.onMainPort;
}

function serviceVersion(): string {
  const manifest = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? '0.0.0';
}

export const httpModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.HttpCore)
    .toResolvedValue(
      (
        config: Config,
        logger: Logger,
        store: Store,
        passwordLogin: PasswordLogin,
        logout: Logout,
        changePassword: ChangePassword,
        authenticator: SessionAuthenticator,
        ssoLogin: SsoLogin,
        ssoLogout: SsoLogout,
        backchannelLogout: BackchannelLogout,
        metrics: GatehouseMetrics | null,
        sessionManagement: SessionManagement,
        providers: ProviderDirectory<SsoProviderParts>,
        sessionStore: SessionStoreName,
        mfaLoginRoutes: Route[],
        mfaEnrolment: Route[],
        webAuthnRoutes: Route[],
      ) =>
        new HttpCore({
          logger,
          trustedOrigins: config.trustedOrigins,
          authenticator,
          cookieName: config.cookie.name,
          ...(metrics ? { onClientAbort: metrics.clientAborted } : {}),
          // The document is built from this table: a route served is a route documented.
          routes: withOpenApiDocument(
            [
              ...healthRoutes(store, sessionStore),
              ...sessionRoutes({
                passwordLogin,
                logout,
                changePassword,
                authenticator,
                cookie: config.cookie,
              }),
              ...mfaLoginRoutes,
              ...forwardAuthRoutes(),
              ...ownSessionRoutes({ sessions: sessionManagement, cookie: config.cookie }),
              ...mfaEnrolment,
              ...webAuthnRoutes,
              ...ssoRoutes({
                sso: { login: ssoLogin, logout: ssoLogout, backchannelLogout },
                available: () => !providers.isEmpty(),
                cookie: config.cookie,
                authenticator,
              }),
              ...(metrics && metricsOnMainPort(config, metrics) ? metricsRoutes(metrics) : []),
            ],
            { cookieName: config.cookie.name, version: serviceVersion() },
          ),
        }),
      [
        TOKENS.Config,
        TOKENS.Logger,
        TOKENS.Store,
        TOKENS.PasswordLogin,
        TOKENS.Logout,
        TOKENS.ChangePassword,
        TOKENS.SessionAuthenticator,
        TOKENS.SsoLogin,
        TOKENS.SsoLogout,
        TOKENS.BackchannelLogout,
        TOKENS.Metrics,
        TOKENS.SessionManagement,
        TOKENS.ProviderDirectory,
        TOKENS.SessionStoreName,
        TOKENS.MfaLoginRoutes,
        MFA_ENROLMENT_TOKENS.Routes,
        TOKENS.WebAuthnRoutes,
      ],
    )
    .inSingletonScope();
});
