import type { IdTokenAlgorithm } from '../../domain/sso/provider-registration.js';

export interface ProbeTarget {
  issuer: string;
  idTokenAlg: IdTokenAlgorithm;
  timeoutMs: number;
  allowInsecureHttp: boolean;
}

export interface ProbeResult {
  ok: boolean;
  lines: string[];
}

/** The key type (and curve) that can verify a signature of each expected algorithm. */
const KEY_FOR: Record<IdTokenAlgorithm, { kty: string; crv?: string }> = {
  RS256: { kty: 'RSA' },
  PS256: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
};

async function getJson(url: string, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as unknown;
}

function reason(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    return `${error.name === 'TimeoutError' ? 'timed out' : error.message}${detail}`;
  }
  return String(error);
}

/**
 * `gatehouse provider test`: what an operator needs to know before customers try to log in:
 * does discovery answer, is the issuer it names exactly the one registered (a mismatch would
 * refuse every ID token), and does the key set hold a key for the expected algorithm. Each
 * finding is one line; `ok` is false when any of them would stop a login.
 */
export async function probeProvider(target: ProbeTarget): Promise<ProbeResult> {
  const lines: string[] = [];
  const issuerUrl = new URL(target.issuer);
  if (issuerUrl.protocol === 'http:' && !target.allowInsecureHttp) {
    return {
      ok: false,
      lines: [`fail  issuer ${target.issuer} is http:// (allowed only with OIDC_ALLOW_INSECURE_HTTP=true)`],
    };
  }
  const discoveryUrl = `${target.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let discovery: Record<string, unknown>;
  try {
    const body = await getJson(discoveryUrl, target.timeoutMs);
    if (!body || typeof body !== 'object') throw new Error('not a JSON object');
    discovery = body as Record<string, unknown>;
    lines.push(`ok    discovery ${discoveryUrl}`);
  } catch (error) {
    return { ok: false, lines: [`fail  discovery ${discoveryUrl}: ${reason(error)}`] };
  }
  let ok = true;
  if (discovery.issuer === target.issuer) {
    lines.push(`ok    issuer ${target.issuer}`);
  } else {
    ok = false;
    lines.push(
      `fail  issuer: discovery names ${JSON.stringify(discovery.issuer)}, registered ${JSON.stringify(target.issuer)}`,
    );
  }
  const jwksUri = discovery.jwks_uri;
  if (typeof jwksUri !== 'string') {
    return { ok: false, lines: [...lines, 'fail  keys: discovery has no jwks_uri'] };
  }
  try {
    const body = (await getJson(jwksUri, target.timeoutMs)) as { keys?: unknown };
    const keys = Array.isArray(body?.keys) ? (body.keys as Record<string, unknown>[]) : [];
    const wanted = KEY_FOR[target.idTokenAlg];
    const usable = keys.filter(
      (key) =>
        key.kty === wanted.kty &&
        (wanted.crv === undefined || key.crv === wanted.crv) &&
        (key.use === undefined || key.use === 'sig') &&
        (key.alg === undefined || key.alg === target.idTokenAlg),
    );
    if (usable.length > 0) {
      lines.push(`ok    keys ${jwksUri}: ${usable.length} of ${keys.length} can verify ${target.idTokenAlg}`);
    } else {
      ok = false;
      lines.push(
        `fail  keys ${jwksUri}: none of ${keys.length} can verify ${target.idTokenAlg} (--id-token-alg)`,
      );
    }
  } catch (error) {
    ok = false;
    lines.push(`fail  keys ${jwksUri}: ${reason(error)}`);
  }
  const advertised = discovery.id_token_signing_alg_values_supported;
  if (Array.isArray(advertised) && !advertised.includes(target.idTokenAlg)) {
    lines.push(`note  the provider advertises ${advertised.join(', ')}, not ${target.idTokenAlg}`);
  }
  return { ok, lines };
}
