import type { Attributes } from '@opentelemetry/api';
import type { Container } from 'inversify';
import { ATTRIBUTES, type TracedMethod, tracedObject } from '../adapters/tracing/spans.js';
import { tracedHttpCore } from '../adapters/tracing/traced-http-core.js';
import { tracedProviderFetch } from '../adapters/tracing/traced-provider-fetch.js';
import type { LoginResult } from '../application/login-result.js';
import type { AuthenticatedSession } from '../application/session-authenticator.js';
import type { SsoLoginInput } from '../application/sso/sso-login.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import { TOKENS } from './tokens.js';

/**
 * Tracing's share of the wiring (loaded only when tracing is on, src/boot/tracing.ts): every use
 * case, the password hasher and the HTTP core are wrapped as the container makes them, so no use
 * case knows about spans. Attributes name the tenant, the provider and the user id where known;
 * never a password, cookie, session id, code, token, secret or username.
 */

/** The tenant and user a result names, when it names them (a user, or something holding one). */
function whoseResult(result: unknown): Attributes {
  if (!result || typeof result !== 'object') return {};
  const holder = result as {
    user?: unknown;
    ids?: { tenant_id?: string };
    userId?: unknown;
    tenantId?: unknown;
  };
  if (holder.user && typeof holder.user === 'object') return whoseResult(holder.user);
  const attributes: Attributes = {};
  const tenant = typeof holder.tenantId === 'string' ? holder.tenantId : holder.ids?.tenant_id;
  if (tenant) attributes[ATTRIBUTES.tenant] = tenant;
  if (typeof holder.userId === 'string') attributes[ATTRIBUTES.user] = holder.userId;
  return attributes;
}

const login = (span: string): TracedMethod => ({
  span,
  describe: ((result: LoginResult) => whoseResult(result)) as TracedMethod['describe'],
});

/** Every method of a use case with many (the administration's), each its own span: `<prefix>.<method>`. */
function everyMethod<T extends object>(target: T, prefix: string): T {
  const methods: Record<string, TracedMethod> = {};
  for (
    let prototype = Object.getPrototypeOf(target) as object | null;
    prototype && prototype !== Object.prototype;
    prototype = Object.getPrototypeOf(prototype) as object | null
  ) {
    for (const method of Object.getOwnPropertyNames(prototype))
      if (method !== 'constructor')
        methods[method] ??= { span: `${prefix}.${method}`, describe: whoseResult as never };
  }
  return tracedObject(target, methods as never);
}

/** The password hasher with its verifications in spans (argon2id's cost shows in the trace). */
function tracedHasher(hasher: PasswordHasher): PasswordHasher {
  return tracedObject(hasher, {
    verify: { span: 'gatehouse.password.verify' },
    verifyDummy: { span: 'gatehouse.password.verify' },
    hash: { span: 'gatehouse.password.hash' },
  });
}

export function traceContainer(container: Container): void {
  container.onActivation(TOKENS.PasswordHasher, (_, hasher) => tracedHasher(hasher));
  container.onActivation(TOKENS.PasswordLogin, (_, useCase) =>
    tracedObject(useCase, { execute: login('gatehouse.login.password') }),
  );
  container.onActivation(TOKENS.SsoLogin, (context, useCase) =>
    tracedObject(useCase, {
      execute: {
        ...login('gatehouse.login.sso'),
        // The provider the redirect URI selects (the use case selects it the same way).
        attributes: ((input: SsoLoginInput) => {
          const id = context.get(TOKENS.ProviderDirectory).select(input.redirectUri)?.rules.id;
          return id ? { [ATTRIBUTES.provider]: id } : {};
        }) as TracedMethod['attributes'],
      },
    }),
  );
  container.onActivation(TOKENS.SsoLogout, (_, useCase) =>
    tracedObject(useCase, { execute: { span: 'gatehouse.logout.sso' } }),
  );
  container.onActivation(TOKENS.BackchannelLogout, (_, useCase) =>
    tracedObject(useCase, { execute: { span: 'gatehouse.logout.backchannel' } }),
  );
  container.onActivation(TOKENS.Logout, (_, useCase) =>
    tracedObject(useCase, { execute: { span: 'gatehouse.logout' } }),
  );
  container.onActivation(TOKENS.SessionAuthenticator, (_, useCase) =>
    tracedObject(useCase, {
      authenticate: {
        span: 'gatehouse.session.check',
        describe: ((found: AuthenticatedSession) => whoseResult(found.user)) as TracedMethod['describe'],
      },
    }),
  );
  container.onActivation(TOKENS.ChangePassword, (_, useCase) =>
    tracedObject(useCase, {
      execute: {
        span: 'gatehouse.password.change',
        attributes: ((current: AuthenticatedSession) =>
          whoseResult(current.user)) as TracedMethod['attributes'],
      },
    }),
  );
  container.onActivation(TOKENS.SessionManagement, (_, useCase) =>
    everyMethod(useCase, 'gatehouse.sessions'),
  );
  container.onActivation(TOKENS.AdminUsers, (_, useCase) => everyMethod(useCase, 'gatehouse.admin.users'));
  container.onActivation(TOKENS.AdminDirectory, (_, useCase) =>
    everyMethod(useCase, 'gatehouse.admin.directory'),
  );
  container.onActivation(TOKENS.AdminProviders, (_, useCase) =>
    everyMethod(useCase, 'gatehouse.admin.providers'),
  );
  container.onActivation(TOKENS.ImportUsers, (_, useCase) => everyMethod(useCase, 'gatehouse.admin.import'));
  container.onActivation(TOKENS.AdminAudit, (_, useCase) => everyMethod(useCase, 'gatehouse.admin.audit'));
  container.onActivation(TOKENS.HttpCore, (_, core) => tracedHttpCore(core));
}

/** The provider fetch wrapper, for createSsoParts (each provider's calls in spans named by its id). */
export const providerFetchFor = tracedProviderFetch;
