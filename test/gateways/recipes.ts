/**
 * The Traefik and Envoy recipes of docs/gateways.md, read from the page itself: the requests the
 * tests replay are built from the documented values (path, headers passed on, forwarded-header
 * trust), so a recipe that drifts from what the tests show fails them. Only the few keys the tests
 * need are read, each from its own line of the recipe's YAML block.
 */
import { readFileSync } from 'node:fs';

const PAGE = readFileSync(new URL('../../docs/gateways.md', import.meta.url), 'utf8');

/** The first ```yaml block after the heading `## <heading>`. */
function yamlBlock(heading: string): string {
  const section = PAGE.indexOf(`\n## ${heading}`);
  if (section < 0) throw new Error(`docs/gateways.md has no section "## ${heading}"`);
  const start = PAGE.indexOf('```yaml\n', section);
  const end = PAGE.indexOf('\n```', start + 1);
  return PAGE.slice(start + '```yaml\n'.length, end);
}

interface Line {
  indent: number;
  text: string;
}

/** The block's lines without comments, with their indentation. */
function linesOf(block: string): Line[] {
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, ''))
    .filter((line) => line.trim() !== '')
    .map((line) => ({ indent: line.length - line.trimStart().length, text: line.trim() }));
}

/** Every line `key: value` of the block, as [indent, value]. */
function entries(lines: Line[], key: string): Array<{ indent: number; value: string }> {
  return lines
    .filter((line) => line.text.startsWith(`${key}:`))
    .map((line) => ({ indent: line.indent, value: line.text.slice(key.length + 1).trim() }));
}

/** The one value of `key` (quotes removed); fails when the recipe has none or several. */
function only(lines: Line[], key: string): { indent: number; value: string } {
  const found = entries(lines, key);
  if (found.length !== 1) throw new Error(`the recipe has ${found.length} "${key}:" lines`);
  return { indent: found[0]!.indent, value: found[0]!.value.replace(/^"(.*)"$/, '$1') };
}

/** The list items under `key:` (`- X` or `- { exact: X }`), with the key's indentation. */
function listUnder(lines: Line[], key: string): { indent: number; items: string[] } {
  const at = lines.findIndex((line) => line.text === `${key}:`);
  if (at < 0) throw new Error(`the recipe has no "${key}:" list`);
  const indent = lines[at]!.indent;
  const items: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.indent <= indent) break;
    const item = /^- (?:\{ exact: (\S+) \}|(\S+))$/.exec(line.text);
    if (item) items.push((item[1] ?? item[2])!);
  }
  return { indent, items };
}

export interface TraefikRecipe {
  /** The path of `address`, where the check is sent. */
  checkPath: string;
  trustForwardHeader: boolean;
  /** `authRequestHeaders`: the client's headers the check carries (X-Forwarded-* are added after). */
  authRequestHeaders: string[];
}

export function traefikRecipe(): TraefikRecipe {
  const lines = linesOf(yamlBlock('Traefik'));
  return {
    checkPath: new URL(only(lines, 'address').value).pathname,
    trustForwardHeader: only(lines, 'trustForwardHeader').value === 'true',
    authRequestHeaders: listUnder(lines, 'authRequestHeaders').items,
  };
}

export interface EnvoyRecipe {
  pathPrefix: string;
  /** The client's headers the check carries besides the ones Envoy always sends. */
  allowedHeaders: string[];
  /** Whether `allowed_headers` is ExtAuthz's own field (a sibling of `http_service`). */
  allowedHeadersOnExtAuthz: boolean;
  /** Whether the deprecated `http_service.authorization_request.allowed_headers` is used. */
  usesAuthorizationRequest: boolean;
  /** `status_on_error` as a number; Envoy's default, 403, when the recipe does not set it. */
  statusOnError: number;
  /** The status the local-reply mapper matches and the headers it adds (lower-case names). */
  localReply: { status: number | null; addsHeaders: string[] };
}

/** The `envoy.type.v3.StatusCode` names the recipe may use. */
const STATUS_CODES: Readonly<Record<string, number>> = {
  Forbidden: 403,
  InternalServerError: 500,
  BadGateway: 502,
  ServiceUnavailable: 503,
  GatewayTimeout: 504,
};

export function envoyRecipe(): EnvoyRecipe {
  const lines = linesOf(yamlBlock('Envoy'));
  const statusOnError = entries(lines, 'status_on_error');
  const code = /^\{ code: (\w+) \}$/.exec(statusOnError[0]?.value ?? '')?.[1];
  const allowed = listUnder(lines, 'allowed_headers');
  const localReply = /default_value: (\d+)/.exec(
    entries(lines, 'value')
      .map((e) => e.value)
      .join(' '),
  );
  return {
    pathPrefix: only(lines, 'path_prefix').value,
    allowedHeaders: allowed.items,
    allowedHeadersOnExtAuthz: allowed.indent === only(lines, 'http_service').indent,
    usesAuthorizationRequest: entries(lines, 'authorization_request').length > 0,
    statusOnError: code === undefined ? 403 : (STATUS_CODES[code] ?? Number(code)),
    localReply: {
      status: localReply ? Number(localReply[1]) : null,
      addsHeaders: lines
        .map((line) => /^- header: \{ key: ([\w-]+),/.exec(line.text)?.[1])
        .filter((name): name is string => name !== undefined)
        .map((name) => name.toLowerCase()),
    },
  };
}
