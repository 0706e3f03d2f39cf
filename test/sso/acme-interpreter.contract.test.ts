/**
 * The exported interpreter contract (`gatehouse/testing`, src/testing/index.ts) run on the example
 * customer package (test/fixtures/acme-interpreter) and on the built-in claims interpreter, plus
 * a few checks that the contract's model of the service matches the service.
 */
import { describe, expect, it } from 'vitest';
import { createClaimsInterpreter } from '../../src/adapters/openid/claims-interpreter.js';
import { loadInterpreter } from '../../src/adapters/openid/interpreter-loader.js';
import {
  runLikeTheService,
  SsoInterpretationError,
  ssoTokenInterpreterContract,
  tokenSetFromClaims,
} from '../../src/testing/index.js';
import createAcmeInterpreter from '../fixtures/acme-interpreter/index.js';

const ACME = 'https://acme.example/claims';

ssoTokenInterpreterContract({
  name: 'acme-gatehouse-interpreter (example package)',
  factory: createAcmeInterpreter,
  samples: {
    valid: [
      {
        tokens: tokenSetFromClaims({
          sub: 'acme|g1|ann',
          [ACME]: { login: 'ann' },
          acme_org: { unit_id: 'g1', name: 'Sales' },
        }),
        expected: { username: 'ann', groupId: 'g1' },
      },
      {
        // Older accounts: only the sub pattern acme|<unit>|<login>.
        tokens: tokenSetFromClaims({ sub: 'acme|g2|bob' }),
        expected: { username: 'bob', groupId: 'g2' },
      },
      {
        // The namespaced claims may come from userinfo.
        tokens: tokenSetFromClaims(
          { sub: 'u-42' },
          { userinfo: { sub: 'u-42', [ACME]: { login: 'cid' }, acme_org: { unit_id: ['g3'] } } },
        ),
        expected: { username: 'cid', groupId: 'g3' },
      },
    ],
    withoutUsername: tokenSetFromClaims({
      sub: 'u-7',
      preferred_username: 'standard-claims-are-not-acme',
      acme_org: { unit_id: 'g1' },
    }),
    withTwoGroups: tokenSetFromClaims({
      sub: 'acme|g1|dan',
      [ACME]: { login: 'dan' },
      acme_org: { unit_id: ['g1', 'g2'] },
    }),
  },
});

ssoTokenInterpreterContract({
  name: 'built-in claims interpreter',
  factory: createClaimsInterpreter,
  samples: {
    valid: {
      tokens: tokenSetFromClaims({ sub: 's-1', preferred_username: 'gina', groups: ['g1'] }),
      expected: { username: 'gina', groupId: 'g1' },
    },
    withoutUsername: tokenSetFromClaims({ sub: 's-2', groups: ['g1'] }),
    withTwoGroups: tokenSetFromClaims({ sub: 's-3', preferred_username: 'bob', groups: ['g1', 'g2'] }),
  },
});

ssoTokenInterpreterContract({
  name: 'built-in claims interpreter with SSO_USERNAME_CLAIM / SSO_GROUP_CLAIM',
  factory: createClaimsInterpreter,
  settings: { usernameClaim: 'upn', groupClaim: 'org.group_id' },
  samples: {
    valid: {
      tokens: tokenSetFromClaims({ sub: 's-1', upn: 'gina', org: { group_id: 'g1' } }),
      expected: { username: 'gina', groupId: 'g1' },
    },
    withoutUsername: tokenSetFromClaims({ sub: 's-2', preferred_username: 'gina', org: { group_id: 'g1' } }),
    withTwoGroups: tokenSetFromClaims({ sub: 's-3', upn: 'bob', org: { group_id: ['g1', 'g2'] } }),
  },
});

describe('the example package as Gatehouse loads it', () => {
  it('loads by path specifier, relative to the working directory and absolute', async () => {
    const settings = { usernameClaim: 'preferred_username', groupClaim: 'groups', env: {}, timeoutMs: 5000 };
    const relative = await loadInterpreter('./test/fixtures/acme-interpreter', settings);
    const absolute = await loadInterpreter(
      new URL('../fixtures/acme-interpreter', import.meta.url).pathname,
      settings,
    );
    for (const interpreter of [relative, absolute]) {
      expect(interpreter.name).toBe('acme');
      expect(await interpreter.interpret(tokenSetFromClaims({ sub: 'acme|g1|ann' }))).toEqual({
        username: 'ann',
        groupIds: ['g1'],
      });
    }
  });

  it('reads its own variable from the environment the service passes', async () => {
    const interpreter = await loadInterpreter('./test/fixtures/acme-interpreter', {
      usernameClaim: 'preferred_username',
      groupClaim: 'groups',
      env: { ACME_CLAIMS_NAMESPACE: 'https://acme.example/v2' },
      timeoutMs: 5000,
    });
    const identity = await interpreter.interpret(
      tokenSetFromClaims({
        sub: 'u-1',
        'https://acme.example/v2': { login: 'eva' },
        acme_org: { unit_id: 'g1' },
      }),
    );
    expect(identity).toEqual({ username: 'eva', groupIds: ['g1'] });
  });
});

describe('runLikeTheService (the contract model of the SSO login)', () => {
  const interpreter = (interpret: () => unknown) => ({ name: 'probe', interpret }) as never;

  it('keeps the code of an SsoInterpretationError thrown by the interpreter', async () => {
    const outcome = await runLikeTheService(
      interpreter(() => {
        throw new SsoInterpretationError('SSO_MULTI_GROUPS', 'two');
      }),
      tokenSetFromClaims({}),
    );
    expect(outcome).toMatchObject({ ok: false, code: 'SSO_MULTI_GROUPS' });
  });

  it('turns any other failure into SSO_INVALID, as the service does', async () => {
    const outcome = await runLikeTheService(
      interpreter(() => {
        throw new Error('bug');
      }),
      tokenSetFromClaims({}),
    );
    expect(outcome).toMatchObject({ ok: false, code: 'SSO_INVALID' });
  });

  it("applies the service's own rules to what the interpreter returns", async () => {
    const check = async (identity: unknown) => {
      const outcome = await runLikeTheService(
        interpreter(() => identity),
        tokenSetFromClaims({}),
      );
      return outcome.ok ? outcome.identity : outcome.code;
    };
    expect(await check({ username: '  ', groupIds: ['g1'] })).toBe('SSO_INVALID_USERNAME');
    expect(await check({ username: 'a', groupIds: ['g1', 'g2'] })).toBe('SSO_MULTI_GROUPS');
    expect(await check({ username: 'a', groupIds: [] })).toBe('SSO_INVALID_GROUPID_AND_USERNAME');
    expect(await check({ username: 'a', groupIds: ['g1', 'g1'] })).toEqual({ username: 'a', groupId: 'g1' });
  });
});
