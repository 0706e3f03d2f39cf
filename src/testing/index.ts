/**
 * `@gatehouse-auth/gatehouse/testing`: what a per-customer token interpreter package needs to test itself.
 *
 *   import { ssoTokenInterpreterContract, tokenSetFromClaims } from '@gatehouse-auth/gatehouse/testing';
 *   import createInterpreter from '../index.js';
 *
 *   ssoTokenInterpreterContract({
 *     factory: createInterpreter,
 *     samples: {
 *       valid: { tokens: tokenSetFromClaims({ sub: 'u1', login: 'ann', org: 'g1' }),
 *                expected: { username: 'ann', groupId: 'g1' } },
 *       withoutUsername: tokenSetFromClaims({ sub: 'u2', org: 'g1' }),
 *       withTwoGroups: tokenSetFromClaims({ sub: 'u3', login: 'bob', org: ['g1', 'g2'] }),
 *     },
 *   });
 *
 * The suite is written with vitest (`describe` / `it` / `expect`), so the customer package runs it
 * with `vitest run`; vitest is the package's own development dependency.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../domain/shared/domain-error.js';
import type { ValidatedTokenSet } from '../domain/sso/openid-provider.port.js';
import { checkSsoIdentity } from '../domain/sso/sso-identity.js';
import { interpretationRefusal } from '../domain/sso/sso-interpretation-error.js';
import type {
  SsoInterpretationCode,
  SsoInterpreterSettings,
  SsoTokenInterpreter,
  SsoTokenInterpreterFactory,
} from '../domain/sso/sso-token-interpreter.port.js';

export type { LogoutTokenClaims, ValidatedTokenSet } from '../domain/sso/openid-provider.port.js';
export { checkSsoIdentity } from '../domain/sso/sso-identity.js';
export { SsoInterpretationError } from '../domain/sso/sso-interpretation-error.js';
export type {
  SsoIdentity,
  SsoInterpretationCode,
  SsoInterpreterSettings,
  SsoTokenInterpreter,
  SsoTokenInterpreterFactory,
} from '../domain/sso/sso-token-interpreter.port.js';

/** The issuer `tokenSetFromClaims` uses when the claims carry none. */
export const SAMPLE_ISSUER = 'https://idp.example.test';

/**
 * A validated token set as the service would hand it to an interpreter, built from ID token
 * claims (no signature is involved: the service validates before interpreting). `iss`, `sub`,
 * `aud`, `iat` and `exp` get defaults when absent; `overrides` sets userinfo, tokens or sid.
 */
export function tokenSetFromClaims(
  claims: Record<string, unknown>,
  overrides: Partial<Omit<ValidatedTokenSet, 'claims'>> = {},
): ValidatedTokenSet {
  const now = 1_700_000_000;
  const full: Record<string, unknown> = {
    iss: SAMPLE_ISSUER,
    sub: 'sample-subject',
    aud: 'gatehouse',
    iat: now,
    exp: now + 600,
    ...claims,
  };
  const sid = typeof full.sid === 'string' ? full.sid : undefined;
  return {
    idToken: 'eyJhbGciOiJSUzI1NiJ9.sample.signature',
    claims: full,
    issuer: String(full.iss),
    subject: String(full.sub),
    ...(sid ? { sid } : {}),
    ...overrides,
  };
}

export interface SsoInterpreterContractSample {
  tokens: ValidatedTokenSet;
  /** What the service must end up with after its own checks (`checkSsoIdentity`). */
  expected: { username: string; groupId: string };
}

export interface SsoTokenInterpreterContractOptions {
  /** Shown in the suite name, e.g. the package name. */
  name?: string;
  /** The package's factory: its `default` or `createInterpreter` export. */
  factory: SsoTokenInterpreterFactory;
  /**
   * Settings the factory receives (merged over the service's defaults: usernameClaim
   * `preferred_username`, groupClaim `groups`, env `{}`, timeoutMs 5000).
   */
  settings?: Partial<SsoInterpreterSettings>;
  samples: {
    /** One or more token sets the interpreter must map to exactly one user. */
    valid: SsoInterpreterContractSample | readonly SsoInterpreterContractSample[];
    /** A token set without a usable username: the service must refuse with SSO_INVALID_USERNAME. */
    withoutUsername: ValidatedTokenSet;
    /** A token set naming two groups: the service must refuse with SSO_MULTI_GROUPS. */
    withTwoGroups: ValidatedTokenSet;
  };
}

const DEFAULT_SETTINGS: SsoInterpreterSettings = {
  usernameClaim: 'preferred_username',
  groupClaim: 'groups',
  env: {},
  timeoutMs: 5000,
};

/** What the service does with a token set: the interpreter, then its own rules over the result. */
export type ContractOutcome =
  | { ok: true; identity: { username: string; groupId: string }; raw: unknown }
  | { ok: false; code: SsoInterpretationCode | string; error: unknown; raw?: unknown };

/**
 * Runs `interpreter` on `tokens` the way the service's SSO login does: a DomainError (such as
 * SsoInterpretationError) thrown by the interpreter keeps its code, any other failure becomes
 * SSO_INVALID, and the result goes through `checkSsoIdentity`.
 */
export async function runLikeTheService(
  interpreter: SsoTokenInterpreter,
  tokens: ValidatedTokenSet,
): Promise<ContractOutcome> {
  let raw: unknown;
  try {
    raw = await interpreter.interpret(tokens);
  } catch (error) {
    const refusal = interpretationRefusal(error);
    if (refusal) return { ok: false, code: refusal.code, error };
    return { ok: false, code: 'SSO_INVALID', error };
  }
  try {
    return { ok: true, identity: checkSsoIdentity(raw), raw };
  } catch (error) {
    return { ok: false, code: (error as DomainError).code, error, raw };
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function describeFailure(outcome: ContractOutcome): string {
  if (outcome.ok) return `accepted as ${JSON.stringify(outcome.identity)}`;
  const error = outcome.error as { name?: unknown; message?: unknown; code?: unknown } | null;
  const hint =
    error && error.name === 'SsoInterpretationError' && !(error instanceof DomainError)
      ? ' (an SsoInterpretationError the service does not recognise: take the class of "@gatehouse-auth/gatehouse-testing/errors")'
      : '';
  return `refused with ${outcome.code}: ${String(error?.message ?? error)}${hint}`;
}

/**
 * The contract every SsoTokenInterpreter must keep, as a vitest suite. Call it at the top level
 * of a test file (it registers `describe` / `it` blocks).
 */
export function ssoTokenInterpreterContract(options: SsoTokenInterpreterContractOptions): void {
  const settings: SsoInterpreterSettings = { ...DEFAULT_SETTINGS, ...options.settings };
  const valid = Array.isArray(options.samples.valid)
    ? (options.samples.valid as readonly SsoInterpreterContractSample[])
    : [options.samples.valid as SsoInterpreterContractSample];
  const create = async (): Promise<SsoTokenInterpreter> => options.factory(settings);

  describe(`SsoTokenInterpreter contract${options.name ? `: ${options.name}` : ''}`, () => {
    it('the factory returns { name, interpret } (and endProviderSession only as a function)', async () => {
      expect(typeof options.factory).toBe('function');
      const interpreter = await create();
      expect(interpreter, 'the factory returned nothing').toBeTruthy();
      expect(typeof interpreter.name, 'name must be a string').toBe('string');
      expect(interpreter.name.length, 'name must not be empty').toBeGreaterThan(0);
      expect(typeof interpreter.interpret, 'interpret must be a function').toBe('function');
      if (interpreter.endProviderSession !== undefined) {
        expect(typeof interpreter.endProviderSession).toBe('function');
      }
    });

    it('maps each valid sample to its username and a single group', async () => {
      expect(valid.length, 'give at least one valid sample').toBeGreaterThan(0);
      const interpreter = await create();
      for (const [index, sample] of valid.entries()) {
        const outcome = await runLikeTheService(interpreter, sample.tokens);
        expect(outcome.ok, `valid sample #${index} was ${describeFailure(outcome)}`).toBe(true);
        if (!outcome.ok) continue;
        expect(outcome.identity).toEqual(sample.expected);
        const raw = outcome.raw as { username?: unknown; groupIds?: unknown };
        expect(typeof raw.username).toBe('string');
        expect(Array.isArray(raw.groupIds), 'groupIds must be an array').toBe(true);
        expect(new Set(raw.groupIds as unknown[]).size, `valid sample #${index}: one group`).toBe(1);
      }
    });

    it('a sample without a username ends as SSO_INVALID_USERNAME', async () => {
      const outcome = await runLikeTheService(await create(), options.samples.withoutUsername);
      expect(outcome.ok ? 'accepted' : outcome.code, describeFailure(outcome)).toBe('SSO_INVALID_USERNAME');
    });

    it('a sample with two groups ends as SSO_MULTI_GROUPS', async () => {
      const outcome = await runLikeTheService(await create(), options.samples.withTwoGroups);
      expect(outcome.ok ? 'accepted' : outcome.code, describeFailure(outcome)).toBe('SSO_MULTI_GROUPS');
    });

    it('does not mutate the token set it is given (and works on a frozen one)', async () => {
      const interpreter = await create();
      const all = [
        ...valid.map((sample) => sample.tokens),
        options.samples.withoutUsername,
        options.samples.withTwoGroups,
      ];
      for (const tokens of all) {
        const before = structuredClone(tokens);
        const outcome = await runLikeTheService(interpreter, tokens);
        expect(tokens).toEqual(before);
        const frozen = deepFreeze(structuredClone(tokens));
        const onFrozen = await runLikeTheService(interpreter, frozen);
        expect(onFrozen.ok ? onFrozen.identity : onFrozen.code).toEqual(
          outcome.ok ? outcome.identity : outcome.code,
        );
      }
    });

    it('is deterministic: the same input gives the same answer, on one instance and on a new one', async () => {
      const first = await create();
      const second = await create();
      const all = [
        ...valid.map((sample) => sample.tokens),
        options.samples.withoutUsername,
        options.samples.withTwoGroups,
      ];
      for (const tokens of all) {
        const results = [
          await runLikeTheService(first, tokens),
          await runLikeTheService(first, tokens),
          await runLikeTheService(second, tokens),
        ].map((outcome) => ({ code: outcome.ok ? null : outcome.code, raw: outcome.raw }));
        expect(results[1]).toEqual(results[0]);
        expect(results[2]).toEqual(results[0]);
      }
    });
  });
}
