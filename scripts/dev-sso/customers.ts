/**
 * The two demo customers of the `npm run dev:sso` playground. Each has its own OpenID provider
 * (own issuer, keys and signing algorithm), its own token interpreter, and its own tenant, group
 * and users in Gatehouse; the playground registers each provider as `gatehouse provider add`
 * would, limited to that customer's tenant.
 *
 * The accounts say what each provider asserts when that login name is typed on its development
 * login page; they include refusals, so a newcomer sees the isolation rules as well as the logins.
 */
import { fileURLToPath } from 'node:url';
import type { IdTokenAlgorithm } from '../../src/domain/sso/provider-registration.js';
import type { UserAttributes, UserLevel } from '../../src/domain/user/user.js';

/** A user row Gatehouse keeps (single sign-on only: no password). */
export interface DemoUser {
  username: string;
  userLevel: UserLevel;
  groupId: string;
  attributes: Partial<UserAttributes>;
}

/** An account at a customer's provider: the login name typed there, and what happens next. */
export interface DemoAccount {
  login: string;
  /** The claims the provider releases for it (`sub` is the login name). */
  claims: Record<string, unknown>;
  outcome: string;
}

export interface DemoCustomer {
  /** The registered provider's id, also the last path segment of its redirect URI. */
  id: string;
  /** The portal's button: "Log in with <label>". */
  label: string;
  tenant: { id: string; name: string };
  groups: ReadonlyArray<{ id: string; name: string }>;
  users: readonly DemoUser[];
  accounts: readonly DemoAccount[];
  /** The name the registry gives its interpreter: `claims` (built in) or a key of SSO_INTERPRETERS. */
  interpreter: string;
  /** The interpreter's own settings (`gatehouse provider add --setting NAME=VALUE`). */
  settings: Readonly<Record<string, string>>;
  idTokenAlg: IdTokenAlgorithm;
}

/** Acme's interpreter: the example customer package (docs/sso-adapters.md), by absolute path. */
export const ACME_INTERPRETER_MODULE = fileURLToPath(
  new URL('../../test/fixtures/acme-interpreter/index.js', import.meta.url),
);

export const ACME: DemoCustomer = {
  id: 'acme',
  label: 'Acme',
  tenant: { id: 't-acme', name: 'Acme Corp (demo)' },
  groups: [{ id: 'g-acme', name: 'Acme Sales (demo)' }],
  users: [
    {
      username: 'ann',
      userLevel: 8,
      groupId: 'g-acme',
      attributes: { firstName: 'Ann', lastName: 'Acme', emailAddress: 'ann@acme.test', language: 'en' },
    },
  ],
  accounts: [
    {
      login: 'ann',
      // Acme's own layout, read by its interpreter: the login under a namespace, the unit id.
      claims: { acme: { login: 'ann' }, acme_org: { unit_id: 'g-acme', name: 'Sales' } },
      outcome: 'signs in to tenant t-acme, group g-acme (read by the acme interpreter)',
    },
    {
      login: 'bob',
      claims: { acme: { login: 'bob' }, acme_org: { unit_id: 'g-globex' } },
      outcome:
        "Acme's provider vouching for Globex's bob: refused with SSO_INVALID_GROUPID_AND_USERNAME (not Acme's tenant)",
    },
  ],
  interpreter: 'acme',
  settings: { ACME_CLAIMS_NAMESPACE: 'acme' },
  idTokenAlg: 'RS256',
};

export const GLOBEX: DemoCustomer = {
  id: 'globex',
  label: 'Globex',
  tenant: { id: 't-globex', name: 'Globex (demo)' },
  groups: [
    { id: 'g-globex', name: 'Globex Engineering (demo)' },
    { id: 'g-globex-ops', name: 'Globex Operations (demo)' },
  ],
  users: [
    {
      username: 'bob',
      userLevel: 8,
      groupId: 'g-globex',
      attributes: { firstName: 'Bob', lastName: 'Globex', emailAddress: 'bob@globex.test', language: 'en' },
    },
    { username: 'eve', userLevel: 0, groupId: 'g-globex', attributes: { firstName: 'Eve' } },
    { username: 'carl', userLevel: 8, groupId: 'g-globex', attributes: { firstName: 'Carl' } },
  ],
  accounts: [
    {
      login: 'bob',
      claims: {
        preferred_username: 'bob',
        groups: ['g-globex'],
        given_name: 'Bob',
        email: 'bob@globex.test',
      },
      outcome: 'signs in to tenant t-globex, group g-globex (read by the built-in claims interpreter)',
    },
    {
      login: 'eve',
      claims: { preferred_username: 'eve', groups: ['g-globex'] },
      outcome:
        "end user (level 0), not among the provider's levels: refused with SSO_INVALID_GROUPID_AND_USERNAME",
    },
    {
      login: 'carl',
      claims: { preferred_username: 'carl', groups: ['g-globex', 'g-globex-ops'] },
      outcome: 'the provider sends two groups: refused with SSO_MULTI_GROUPS',
    },
  ],
  interpreter: 'claims',
  settings: {},
  idTokenAlg: 'ES256',
};

export const DEMO_CUSTOMERS: readonly DemoCustomer[] = [ACME, GLOBEX];
