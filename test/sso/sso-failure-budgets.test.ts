/**
 * SSO failure budgets are per provider: a client address's failed SSO logins are counted against
 * the provider they went to, so one customer's provider failing (down, or refusing every code)
 * throttles only logins through it, never another customer's users behind the same address (an
 * office NAT, a proxy). Two real oidc-provider instances, one of them then stopped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nonce, REDIRECT_URI, ssoLogin } from '../fixtures/sso/harness.js';
import { startTwoCustomers, type TwoCustomers } from '../fixtures/sso/two-customers.js';
import type { TestProvider } from '../support/oidc/test-provider.js';
import { TestClient, type TestServer } from '../support/test-server.js';

/** LOGIN_MAX_FAILURES=1: an address may fail 10 SSO logins a window per provider. */
const ADDRESS_BUDGET = 10;
/** One office's address, in front of both customers' users (TRUST_PROXY=1). */
const OFFICE = { 'x-forwarded-for': '192.0.2.44' };

describe('SSO failure budgets per provider', () => {
  let deployment: TwoCustomers;
  let server: TestServer;
  let healthy: TestProvider;
  let failing: TestProvider;

  /** A login through the failing customer's provider, from the office. */
  const failingLogin = () =>
    new TestClient(server.url).post(
      '/api/v1/openid/login/',
      {
        nonce: nonce(),
        authorization_code: randomBytes(8).toString('hex'),
        redirect_uri: deployment.redirectUri,
      },
      OFFICE,
    );

  beforeAll(async () => {
    deployment = await startTwoCustomers('failing', { LOGIN_MAX_FAILURES: '1' });
    ({ server, environment: healthy, registered: failing } = deployment);
  });

  afterAll(() => deployment?.close());

  it("one provider's outage throttles logins through it, not another provider's users at the same address", async () => {
    // The failing customer's provider is down: every login through it is 502 until its budget is spent.
    await failing.close();
    const answers = [];
    for (let i = 0; i < ADDRESS_BUDGET + 1; i++) answers.push(await failingLogin());
    expect(answers.slice(0, ADDRESS_BUDGET).map((answer) => answer.body?.code)).toEqual(
      Array(ADDRESS_BUDGET).fill('SSO_UNREACHABLE'),
    );
    expect(answers.at(-1)).toMatchObject({ status: 429, body: { code: 'TOO_MANY_ATTEMPTS' } });

    // The other customer's user, behind the same address, logs in.
    const { code } = await healthy.issueCode({ accountId: 'ann-1', nonce: 'n-1', redirectUri: REDIRECT_URI });
    const login = await new TestClient(server.url).post(
      '/api/v1/openid/login/',
      { nonce: 'n-1', authorization_code: code, redirect_uri: REDIRECT_URI },
      OFFICE,
    );
    expect(login.status).toBe(200);
  });

  it("a provider's refused codes spend its own budget too, and the other provider's budget stays whole", async () => {
    // The healthy provider refusing junk codes (invalid_grant) from the office: its own budget.
    const refusals = [];
    for (let i = 0; i < ADDRESS_BUDGET + 1; i++) {
      refusals.push(
        await new TestClient(server.url).post(
          '/api/v1/openid/login/',
          { nonce: nonce(), authorization_code: 'junk', redirect_uri: REDIRECT_URI },
          OFFICE,
        ),
      );
    }
    expect(refusals.slice(0, ADDRESS_BUDGET).map((answer) => answer.body?.code)).toEqual(
      Array(ADDRESS_BUDGET).fill('SSO_REFUSED'),
    );
    expect(refusals.at(-1)?.status).toBe(429);
    // From another address, the same provider still logs in.
    expect((await ssoLogin(new TestClient(server.url), healthy, { accountId: 'ann-1' })).status).toBe(200);
  });
});
