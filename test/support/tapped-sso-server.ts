import { ProviderTap, ssoEnv } from '../fixtures/sso/harness.js';
import { type StartTestProviderOptions, startTestProvider, type TestProvider } from './oidc/test-provider.js';
import {
  type SeedUser,
  type StartOptions,
  seedUser,
  startTestServer,
  type TestServer,
} from './test-server.js';

export interface TappedSsoServer {
  /** The OpenID provider the server's single sign-on goes to. */
  tp: TestProvider;
  /** Sees every call the server makes to the provider (the tokens Gatehouse received). */
  tap: ProviderTap;
  server: TestServer;
}

export interface TappedSsoServerOptions {
  provider: StartTestProviderOptions;
  store?: StartOptions['store'];
  /** Besides the provider's own settings (`ssoEnv`). */
  env?: Record<string, string>;
  /** Seeded in this order once the server is up. */
  users?: readonly SeedUser[];
}

/**
 * A test server whose single sign-on goes to a real OpenID provider of its own, through a tap,
 * with its users seeded. The caller closes the server, then the provider; a set-up that fails
 * closes what it started, as the caller never saw it.
 */
export async function startTappedSsoServer(options: TappedSsoServerOptions): Promise<TappedSsoServer> {
  const tp = await startTestProvider(options.provider);
  const tap = new ProviderTap(() => tp.issuer);
  let server: TestServer | undefined;
  try {
    server = await startTestServer({
      store: options.store,
      env: ssoEnv(tp, options.env),
      oidcFetch: tap.fetch,
    });
    for (const user of options.users ?? []) await seedUser(server, user);
    return { tp, tap, server };
  } catch (error) {
    await server?.close();
    await tp.close();
    throw error;
  }
}
