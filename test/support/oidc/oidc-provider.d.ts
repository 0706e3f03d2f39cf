// Minimal typings for the parts of oidc-provider 9 the test provider uses (the package ships none).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcGrant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export interface OidcClient {
    clientId: string;
    backchannelLogout(sub: string, sid?: string): Promise<void>;
  }

  export interface OidcContext {
    oidc: {
      client?: OidcClient;
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
      result?: { consent?: { grantId?: string } };
      params?: Record<string, unknown>;
      requestParamOIDCScopes: Set<string>;
      requestParamClaims: Set<string>;
      provider: Provider;
    };
  }

  export class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    silent: boolean;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    /** Koa middleware around the provider's routes; after `next()`, `ctx.body` is the answer. */
    use(
      middleware: (
        ctx: { status: number; body: unknown; oidc?: { route?: string } },
        next: () => Promise<void>,
      ) => Promise<void>,
    ): this;
    readonly Client: { find(id: string): Promise<OidcClient | undefined> };
    readonly Grant: {
      new (init: { accountId?: string; clientId?: string }): OidcGrant;
      find(id: string): Promise<OidcGrant | undefined>;
    };
  }

  export default Provider;
}
