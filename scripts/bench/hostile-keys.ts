/**
 * The `keys` target: what forged tokens cost against a hostile provider's key set, with and without
 * the verifier's bounds. In the benchmark process, no service: the cost is the verifier's alone.
 *
 * The key set: 30 RSA keys of 16384 bits, 30 of 2048 bits with 2048-bit exponents and 30 ordinary
 * ones of 2048 bits, all under the kid the forged tokens name, and the provider's honest key. `unbounded` checks a forged token
 * against every matching key with node:crypto, as the service's hand-written verifier did;
 * `bounded` is the shipped verifier (jose, keys admitted once per fetch, a few keys a token). The
 * event loop's longest stall is read from `monitorEventLoopDelay`; with each forged token, an
 * honest one is verified by another provider's verifier: its latency is what another customer sees.
 */
import { createPublicKey, type KeyObject, randomBytes, sign, verify } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { JwtSignatureVerifier } from '../../src/adapters/openid/jwt-signature-verifier.js';
import { generateDetachedKeyPair } from '../../test/support/detached-key-pair.js';
import type { Log } from './run.js';
import { type LatencySummary, round, Samples } from './stats.js';

export interface HostileKeysVariant {
  forged_tokens: number;
  signature_checks_per_token: number;
  keys_refused: number;
  ms_per_forged_token: number;
  event_loop_max_stall_ms: number;
  /** Another provider's honest token, verified over and over during the flood. */
  other_provider_verify_ms: LatencySummary;
}

export interface HostileKeysReport {
  key_set: { keys: number; matching_the_forged_kid: number };
  unbounded: HostileKeysVariant;
  bounded: HostileKeysVariant;
}

const KID = 'shared';

function craftedRsa(bits: number, exponentBytes: number | null): Record<string, unknown> {
  const n = randomBytes(bits / 8);
  n[0]! |= 0x80;
  n[n.length - 1]! |= 1;
  const e = exponentBytes === null ? Buffer.from([1, 0, 1]) : randomBytes(exponentBytes);
  e[0]! |= 0x80;
  e[e.length - 1]! |= 1;
  return { kty: 'RSA', kid: KID, n: n.toString('base64url'), e: e.toString('base64url') };
}

function signedToken(privateKey: KeyObject, kid: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ sub: 'someone', iat: Date.now() })).toString('base64url');
  const input = `${header}.${payload}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** What the hand-written verifier did: every key of the kid, each checked synchronously. */
function unboundedVerify(keys: Array<Record<string, unknown>>, jwt: string): number {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const data = Buffer.from(`${header}.${payload}`);
  let checks = 0;
  for (const jwk of keys) {
    if (jwk.kid !== KID) continue;
    const { kid: _kid, ...material } = jwk;
    checks += 1;
    try {
      if (
        verify(
          'sha256',
          data,
          createPublicKey({ key: material, format: 'jwk' }),
          Buffer.from(signature, 'base64url'),
        )
      )
        break;
    } catch {
      // A key node:crypto refuses to use is skipped, as it was.
    }
  }
  return checks;
}

/** Each forged token is checked while another provider verifies an honest one, timed. */
async function measure(
  forgedTokens: number,
  forge: () => Promise<{ checks: number }>,
  otherProvider: () => Promise<unknown>,
): Promise<Omit<HostileKeysVariant, 'keys_refused'>> {
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  const other = new Samples();
  stalls.enable();
  const started = performance.now();
  let checks = 0;
  for (let i = 0; i < forgedTokens; i++) {
    const honestStarted = performance.now();
    const honest = otherProvider().then(() => other.add(performance.now() - honestStarted));
    checks += (await forge()).checks;
    await honest;
  }
  const elapsed = performance.now() - started;
  stalls.disable();
  return {
    forged_tokens: forgedTokens,
    signature_checks_per_token: round(checks / forgedTokens, 1),
    ms_per_forged_token: round(elapsed / forgedTokens, 2),
    event_loop_max_stall_ms: round(stalls.max / 1e6, 1),
    other_provider_verify_ms: other.summary(),
  };
}

export async function hostileKeys(log: Log): Promise<HostileKeysReport> {
  const honest = generateDetachedKeyPair({ type: 'rsa', modulusLength: 2048 });
  const forger = generateDetachedKeyPair({ type: 'rsa', modulusLength: 2048 });
  const keys = [
    ...Array.from({ length: 30 }, () => craftedRsa(16384, null)),
    ...Array.from({ length: 30 }, () => craftedRsa(2048, 256)),
    ...Array.from({ length: 30 }, () => craftedRsa(2048, null)),
    { ...honest.publicKey.export({ format: 'jwk' }), kid: 'honest' },
  ];
  const forged = signedToken(forger.privateKey, KID);
  // Another customer's provider, with a key set of its own.
  const other = new JwtSignatureVerifier({
    algorithm: 'RS256',
    loadJwks: async () => ({ keys: [{ ...honest.publicKey.export({ format: 'jwk' }), kid: 'honest' }] }),
    missRefetchCooldownMs: 10_000,
  });
  const honestToken = signedToken(honest.privateKey, 'honest');
  const otherProvider = () => other.verify(honestToken);
  await otherProvider();

  log('[keys] forged tokens against a hostile key set: every matching key, synchronously (as before)');
  const unbounded = await measure(3, async () => ({ checks: unboundedVerify(keys, forged) }), otherProvider);
  log(
    `  ${unbounded.ms_per_forged_token} ms a token, event loop stalled up to ${unbounded.event_loop_max_stall_ms} ms`,
  );

  log('[keys] the same tokens against the shipped verifier');
  let checks = 0;
  let refused = 0;
  const verifier = new JwtSignatureVerifier({
    algorithm: 'RS256',
    loadJwks: async () => ({ keys }),
    missRefetchCooldownMs: 10_000,
    observer: {
      signatureChecked: () => {
        checks += 1;
      },
      keyRefused: () => {
        refused += 1;
      },
    },
  });
  const bounded = await measure(
    200,
    async () => {
      const before = checks;
      await verifier.verify(forged).catch(() => undefined);
      return { checks: checks - before };
    },
    otherProvider,
  );
  log(
    `  ${bounded.ms_per_forged_token} ms a token, event loop stalled up to ${bounded.event_loop_max_stall_ms} ms`,
  );
  return {
    key_set: { keys: keys.length, matching_the_forged_kid: keys.filter((key) => key.kid === KID).length },
    unbounded: { ...unbounded, keys_refused: 0 },
    bounded: { ...bounded, keys_refused: refused },
  };
}
