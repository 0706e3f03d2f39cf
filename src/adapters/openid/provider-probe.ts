import type { IdTokenAlgorithm } from '../../domain/sso/provider-registration.js';
import { boundedResponse, PROVIDER_ANSWER_MAX_BYTES } from './bounded-response.js';
import { foreignEndpoint, foreignEndpointMessage } from './endpoint-origins.js';

export interface ProbeTarget {
  issuer: string;
  idTokenAlg: IdTokenAlgorithm;
  timeoutMs: number;
  allowInsecureHttp: boolean;
  /** OIDC_ENDPOINT_ORIGINS: origins besides the issuer's that its endpoints may use. */
  endpointOrigins: readonly string[];
  /** The largest answer read (default: the login path's own bound, 256 KB). */
  maxBytes?: number;
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

/** Values the provider sent are shown cut to this length: a line stays a line. */
const SHOWN_MAX_CHARACTERS = 200;

/**
 * A value from the provider's answer, as a finding names it: a string in quotes, anything else
 * as JSON, cut at SHOWN_MAX_CHARACTERS. Control characters are escaped by the command printing it.
 */
function shown(value: unknown): string {
  return cut(typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value)));
}

function cut(text: string): string {
  return text.length > SHOWN_MAX_CHARACTERS
    ? `${text.slice(0, SHOWN_MAX_CHARACTERS)}... (${text.length - SHOWN_MAX_CHARACTERS} more characters)`
    : text;
}

/** The answer at `url` as JSON, read no further than `maxBytes` (a larger one is a finding). */
async function getJson(url: string, timeoutMs: number, maxBytes: number): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`HTTP ${response.status}`);
  }
  const bounded = await boundedResponse(response, maxBytes).catch(() => {
    throw new Error(`answer larger than ${Math.floor(maxBytes / 1024)} KB: not read further`);
  });
  try {
    return JSON.parse(await bounded.text()) as unknown;
  } catch {
    throw new Error('not JSON');
  }
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
  const maxBytes = target.maxBytes ?? PROVIDER_ANSWER_MAX_BYTES;
  const issuerUrl = new URL(target.issuer);
  if (issuerUrl.protocol === 'http:' && !target.allowInsecureHttp) {
    return {
      ok: false,
      lines: [
        `fail  issuer ${cut(target.issuer)} is http:// (allowed only with OIDC_ALLOW_INSECURE_HTTP=true)`,
      ],
    };
  }
  const discoveryUrl = `${target.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let discovery: Record<string, unknown>;
  try {
    const body = await getJson(discoveryUrl, target.timeoutMs, maxBytes);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not a JSON object');
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
      `fail  issuer: discovery names ${shown(discovery.issuer)}, registered ${shown(target.issuer)}`,
    );
  }
  // Checked before the key set is fetched: a foreign jwks_uri is not called at all.
  const foreign = foreignEndpoint(target.issuer, discovery, target.endpointOrigins);
  if (foreign) {
    return {
      ok: false,
      lines: [
        ...lines,
        `fail  endpoints: ${foreignEndpointMessage({ ...foreign, url: shown(foreign.url) })}`,
      ],
    };
  }
  lines.push("ok    endpoints at the issuer's origin or OIDC_ENDPOINT_ORIGINS");
  const jwksUri = discovery.jwks_uri;
  if (typeof jwksUri !== 'string') {
    return { ok: false, lines: [...lines, 'fail  keys: discovery has no jwks_uri'] };
  }
  try {
    const body = (await getJson(jwksUri, target.timeoutMs, maxBytes)) as { keys?: unknown };
    const keys = (Array.isArray(body?.keys) ? (body.keys as unknown[]) : []).filter(
      (key): key is Record<string, unknown> => typeof key === 'object' && key !== null,
    );
    const wanted = KEY_FOR[target.idTokenAlg];
    const usable = keys.filter(
      (key) =>
        key.kty === wanted.kty &&
        (wanted.crv === undefined || key.crv === wanted.crv) &&
        (key.use === undefined || key.use === 'sig') &&
        (key.alg === undefined || key.alg === target.idTokenAlg),
    );
    if (usable.length > 0) {
      lines.push(
        `ok    keys ${cut(jwksUri)}: ${usable.length} of ${keys.length} can verify ${target.idTokenAlg}`,
      );
    } else {
      ok = false;
      lines.push(
        `fail  keys ${cut(jwksUri)}: none of ${keys.length} can verify ${target.idTokenAlg} (--id-token-alg)`,
      );
    }
  } catch (error) {
    ok = false;
    lines.push(`fail  keys ${cut(jwksUri)}: ${reason(error)}`);
  }
  const advertised = discovery.id_token_signing_alg_values_supported;
  if (Array.isArray(advertised) && !advertised.includes(target.idTokenAlg)) {
    lines.push(`note  the provider advertises ${advertised.map(shown).join(', ')}, not ${target.idTokenAlg}`);
  }
  return { ok, lines };
}
