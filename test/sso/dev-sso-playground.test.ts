/**
 * The `npm run dev:sso` playground over HTTP (its browser flow: test/browser/sso-portal.test.ts):
 * both customers' providers registered and serving at once, and a kept data directory
 * (DEV_SSO_DATA_DIR) starting again, with the registry's sealed secrets still readable and each
 * provider registered where it now runs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Playground,
  type PlaygroundCustomer,
  startPlayground,
} from '../../scripts/dev-sso/playground.js';
import { ssoLogin } from '../fixtures/sso/harness.js';
import { pkceChallenge } from '../support/oidc/test-provider.js';
import { TestClient } from '../support/test-server.js';

/** A login as the portal makes it: the customer's redirect URI, PKCE S256. */
function logIn(playground: Playground, customer: PlaygroundCustomer, accountId: string) {
  const verifier = randomBytes(32).toString('base64url');
  return ssoLogin(new TestClient(playground.gatehouseUrl), customer.provider, {
    accountId,
    redirectUri: customer.redirectUri,
    codeChallenge: pkceChallenge(verifier),
    codeVerifier: verifier,
  });
}

describe('the dev:sso playground', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-dev-sso-kept-'));
  let playground: Playground | undefined;

  afterAll(async () => {
    await playground?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers both customers and starts again on a kept data directory, its providers on new ports', {
    timeout: 180_000,
  }, async () => {
    playground = await startPlayground({ ports: 0, dataDir, logLevel: 'silent' });
    const firstIssuer = playground.customers.acme!.issuer;
    const first = await logIn(playground, playground.customers.acme!, 'ann');
    expect({ status: first.status, ids: first.body?.ids }).toEqual({
      status: 200,
      ids: { tenant_id: 't-acme', group_id: 'g-acme' },
    });
    // The key sealing the registry's secrets stays with the data, readable by its owner only.
    expect(statSync(join(dataDir, 'token-encryption-key')).mode & 0o077).toBe(0);
    await playground.close();

    playground = await startPlayground({ ports: 0, dataDir, logLevel: 'silent' });
    expect(playground.customers.acme!.issuer).not.toBe(firstIssuer);
    const [ann, bob] = await Promise.all([
      logIn(playground, playground.customers.acme!, 'ann'),
      logIn(playground, playground.customers.globex!, 'bob'),
    ]);
    expect({ status: ann.status, ids: ann.body?.ids }).toEqual({
      status: 200,
      ids: { tenant_id: 't-acme', group_id: 'g-acme' },
    });
    expect({ status: bob.status, ids: bob.body?.ids }).toEqual({
      status: 200,
      ids: { tenant_id: 't-globex', group_id: 'g-globex' },
    });
    const registered = await playground.gatehouse.store.users.findByUsername('ann');
    expect(registered?.ssoIdentity).toMatchObject({
      provider: 'acme',
      issuer: playground.customers.acme!.issuer,
    });
  });
});
