import { describe, expect, it } from 'vitest';
import { InterpreterLoadError, loadInterpreter } from '../../src/adapters/openid/interpreter-loader.js';
import { registeredProviderParts } from '../../src/adapters/openid/provider-parts.js';
import { loadConfig } from '../../src/boot/config/config.js';
import type { RegisteredProvider } from '../../src/domain/sso/provider-registration.js';
import { providerSettings } from '../contract/provider-registry.contract.js';

/** Names that an object used as a table would answer with a member of Object.prototype. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

const SETTINGS = { usernameClaim: 'preferred_username', groupClaim: 'groups', env: {}, timeoutMs: 1000 };

describe('interpreter tables find only what was configured', () => {
  it.each(PROTOTYPE_NAMES)('SSO_TOKEN_INTERPRETER=%s is not a built-in interpreter', async (name) => {
    const refused = await loadInterpreter(name, SETTINGS).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InterpreterLoadError);
    // Looked up as a package (and not found), never called as a factory of the built-in table.
    expect((refused as Error).message).toMatch(/cannot be loaded/);
  });

  it.each(PROTOTYPE_NAMES)('a registry row naming %s finds no module in SSO_INTERPRETERS', async (name) => {
    const config = loadConfig({
      SSO_INTERPRETERS: 'acme=./test/fixtures/acme-interpreter/index.js',
      OIDC_ALLOW_INSECURE_HTTP: 'true',
    });
    const row: RegisteredProvider = {
      ...providerSettings('evil', { interpreter: name }),
      secrets: { clientSecret: 's', settings: {} },
      createdAt: new Date(0),
      updatedAt: new Date(0),
      enabledSince: new Date(0),
    };
    await expect(registeredProviderParts(config.sso)(row)).rejects.toThrow(
      `provider "evil" names interpreter "${name}", which SSO_INTERPRETERS does not list`,
    );
  });
});
