/**
 * Helpers of the security suites (test/security): a raw HTTP client whose every request is
 * bounded by a time-out, a raw-socket sender for bytes no HTTP client would send, snapshots of the
 * users and sessions tables, a dump of every text column, the served OpenAPI operations, and the
 * checks every answer must pass (a defined status; RFC 9457 problem+json for errors).
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'vitest';
import { storedSessionsAsText } from '../support/stored.js';
import type { TestServer } from '../support/test-server.js';

/** No request of these suites may take longer: a slower answer counts as a hang. */
export const CLIENT_TIMEOUT_MS = 10_000;

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers freely, as TestClient's do
  body: any;
  /** Set-Cookie lines. */
  setCookies: string[];
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
  /** Sends the body with Transfer-Encoding: chunked, in pieces of this size. */
  chunkSize?: number;
  timeoutMs?: number;
}

/** Idle sockets are dropped after 3 s, before the server's 5 s keep-alive time-out closes them. */
const agent = new Agent({ keepAlive: true, maxSockets: 4, timeout: 3000 });

/**
 * One HTTP/1.1 request with node:http (which, unlike fetch, sends any method, a Cookie header and
 * raw bytes). Rejects when no complete answer arrives within the time-out.
 */
export async function send(baseUrl: string, path: string, options: SendOptions = {}): Promise<RawResponse> {
  try {
    return await sendOnce(baseUrl, path, options);
  } catch (error) {
    // Node's documented keep-alive race: the server closed an idle socket as it was reused.
    if ((error as { reusedSocket?: boolean }).reusedSocket) return sendOnce(baseUrl, path, options);
    throw error;
  }
}

function sendOnce(baseUrl: string, path: string, options: SendOptions): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? CLIENT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, response?: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response!);
    };
    const url = new URL(baseUrl);
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const headers: Record<string, string | string[] | number> = { ...options.headers };
    if (body !== undefined && options.chunkSize === undefined) headers['content-length'] = body.length;
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path,
        headers,
        agent,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('error', (error) => finish(error));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          const setCookie = res.headers['set-cookie'];
          finish(null, {
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body: parsed,
            setCookies: Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [],
          });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(new Error(`no answer within ${timeoutMs} ms: ${options.method ?? 'GET'} ${path.slice(0, 200)}`));
    }, timeoutMs);
    req.on('error', (error) => {
      const code = (error as { code?: string }).code;
      if (req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) {
        finish(Object.assign(error, { reusedSocket: true }));
      } else {
        finish(error);
      }
    });
    if (body !== undefined && options.chunkSize !== undefined) {
      for (let offset = 0; offset < body.length; offset += options.chunkSize) {
        req.write(body.subarray(offset, offset + options.chunkSize));
      }
    } else if (body !== undefined) {
      req.write(body);
    }
    req.end();
  });
}

export interface RawSocketAnswer {
  /** The status of the first answer, or null when the server closed without answering. */
  status: number | null;
  /** Everything the server sent (latin1). */
  raw: string;
  /** The head of the first answer, lower-cased names: `x-request-id` says the app answered. */
  head: string;
  /** True when the server closed (or reset) the connection. */
  closed: boolean;
}

/**
 * Writes bytes on a fresh TCP connection and reads until the server closes it, a complete answer
 * has arrived, or the time-out passes (a rejection: a hang); for requests node:http refuses to
 * build (bad header bytes, 1,000 header lines, 40 KiB of headers...).
 *
 * With `endAfterMs`, the client half-closes when no byte has come back by then, so a request left
 * incomplete is ended rather than waited for (Node would wait for headersTimeout). Not earlier:
 * Node aborts a request whose client half-closed, so a complete request must get its answer first.
 */
export function sendRawBytes(
  baseUrl: string,
  bytes: Uint8Array,
  { endAfterMs, timeoutMs = CLIENT_TIMEOUT_MS }: { endAfterMs?: number; timeoutMs?: number } = {},
): Promise<RawSocketAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const parts: Buffer[] = [];
    let done = false;
    let endTimer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(endTimer);
      socket.destroy();
      const raw = Buffer.concat(parts).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      const headEnd = raw.indexOf('\r\n\r\n');
      resolve({
        status: match ? Number(match[1]) : null,
        raw,
        head: (headEnd === -1 ? raw : raw.slice(0, headEnd)).toLowerCase(),
        closed,
      });
    };
    const timer = setTimeout(() => {
      done = true;
      clearTimeout(endTimer);
      socket.destroy();
      reject(new Error(`raw request: no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      // One complete answer is enough: headers plus a Content-Length body.
      const raw = Buffer.concat(parts).toString('latin1');
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd !== -1) {
        const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, headEnd))?.[1];
        if (length !== undefined && raw.length >= headEnd + 4 + Number(length)) finish(false);
      }
    });
    // A reset after (or instead of) an answer: the server refused the rest of the request.
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      socket.write(bytes);
      if (endAfterMs !== undefined) {
        endTimer = setTimeout(() => {
          if (parts.length === 0 && !done) socket.end();
        }, endAfterMs);
      }
    });
  });
}

/** The bytes of an HTTP/1.1 request head (and body), written by hand. */
export function requestBytes(
  method: string,
  target: string,
  headers: Array<[string, string | Uint8Array]>,
  body?: Uint8Array,
): Buffer {
  const lines: Buffer[] = [Buffer.from(`${method} ${target} HTTP/1.1\r\n`, 'latin1')];
  for (const [name, value] of headers) {
    lines.push(
      Buffer.from(`${name}: `, 'latin1'),
      Buffer.from(value as never, 'latin1' as never),
      Buffer.from('\r\n'),
    );
  }
  if (body) lines.push(Buffer.from(`content-length: ${body.length}\r\n`));
  lines.push(Buffer.from('\r\n'));
  if (body) lines.push(Buffer.from(body));
  return Buffer.concat(lines);
}

// ---------------------------------------------------------------------------------------------
// Answers

/** Content types of errors; HEAD answers carry the header without the body. */
export function isProblemJson(headers: IncomingHttpHeaders): boolean {
  return /^application\/problem\+json/.test(String(headers['content-type'] ?? ''));
}

const LEAK = /\n\s+at |node_modules|\/src\/|\.ts:\d+|Error:|SELECT |INSERT |UPDATE |DELETE FROM/;

/**
 * Every error the application answers is RFC 9457 problem+json with the contract's members, the
 * request id of the header, and nothing that leaks internals. Returns a failure message or null
 * (properties report instead of throwing, so fast-check can shrink).
 */
export function problemViolation(response: RawResponse, method = 'GET'): string | null {
  if (response.status < 400) return null;
  if (!isProblemJson(response.headers)) {
    return `status ${response.status} with content-type ${String(response.headers['content-type'])}`;
  }
  if (method === 'HEAD') return null;
  const body = response.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object')
    return `status ${response.status}: body is not JSON: ${response.text}`;
  const requestId = response.headers['x-request-id'];
  if (
    body.type !== 'about:blank' ||
    body.status !== response.status ||
    typeof body.code !== 'string' ||
    typeof body.title !== 'string' ||
    typeof body.detail !== 'string' ||
    body.request_id !== requestId
  ) {
    return `not a problem document: ${response.text.slice(0, 300)}`;
  }
  if (LEAK.test(response.text)) return `leaks internals: ${response.text.slice(0, 300)}`;
  return null;
}

/** Fails the property with a readable message: `null` means the answer is acceptable. */
export function check(violation: string | null): void {
  if (violation !== null) throw new Error(violation);
}

// ---------------------------------------------------------------------------------------------
// Database

export interface RowSnapshot {
  users: string[];
  sessions: string[];
}

/** Every row of users and sessions, as JSON text, in a stable order. */
export async function snapshotRows(server: TestServer): Promise<RowSnapshot> {
  const client = server.sql;
  const users = await client.query<{ row: string }>(
    'SELECT row_to_json(u)::text AS row FROM users u ORDER BY user_id',
  );
  // Sessions from wherever the service keeps them (the sessions table, or Redis).
  const sessions = (await storedSessionsAsText(server)).sort((a, b) => (a.id < b.id ? -1 : 1));
  return { users: users.rows.map((r) => r.row), sessions: sessions.map((s) => s.text) };
}

export async function rowsChanged(server: TestServer, before: RowSnapshot): Promise<string | null> {
  const after = await snapshotRows(server);
  if (JSON.stringify(after.users) !== JSON.stringify(before.users)) return 'the users table changed';
  if (JSON.stringify(after.sessions) !== JSON.stringify(before.sessions)) {
    return `the sessions table changed (${before.sessions.length} -> ${after.sessions.length} rows)`;
  }
  return null;
}

/** Every column of every table of the current schema, each value cast to text, joined. */
export async function dumpDatabaseText(server: TestServer): Promise<string> {
  const client = server.sql;
  const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  expect(columns.length).toBeGreaterThan(0);
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const parts: string[] = [];
  for (const { table_name: table, column_name: column } of columns) {
    const { rows } = await client.query<{ value: string | null }>(
      `SELECT ${quote(column)}::text AS value FROM ${quote(table)}`,
    );
    for (const row of rows) if (row.value !== null) parts.push(`${table}.${column}=${row.value}`);
  }
  // With SESSION_STORE=redis, the sessions are in Redis: they are part of what is stored.
  if (server.config.sessionStore.kind === 'redis') {
    for (const session of await storedSessionsAsText(server)) {
      parts.push(`sessions.token_hash=${session.id}`, `sessions=${session.text}`);
    }
  }
  return parts.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The served API

export interface ServedOperation {
  method: string;
  /** As documented, with `{name}` path parameters. */
  path: string;
  operationId: string;
  /** `required` (the guard runs), `optional` (the cookie is read when sent) or `none`. */
  session: 'required' | 'optional' | 'none';
  /** Media type of the request body, when the operation takes one. */
  requestType: string | null;
  /** The top-level fields of the request body schema (resolved through `$ref`). */
  requestFields: string[];
  /** Every status the document lists for this operation. */
  statuses: number[];
}

/** The operations of the served OpenAPI document: new routes are fuzzed without editing tests. */
export async function servedOperations(server: TestServer): Promise<ServedOperation[]> {
  const response = await send(server.url, '/api/v1/openapi.json');
  expect(response.status).toBe(200);
  const document = response.body as {
    components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
    paths: Record<
      string,
      Record<
        string,
        {
          operationId: string;
          security?: Array<Record<string, unknown>>;
          requestBody?: { content: Record<string, { schema?: { $ref?: string; properties?: object } }> };
          responses: Record<string, unknown>;
        }
      >
    >;
  };
  const operations: ServedOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const security = operation.security ?? [];
      const anonymous = security.length === 0 || security.some((entry) => Object.keys(entry).length === 0);
      const media = operation.requestBody ? Object.values(operation.requestBody.content)[0] : undefined;
      const ref = media?.schema?.$ref?.split('/').at(-1);
      const properties =
        (ref ? document.components?.schemas?.[ref]?.properties : media?.schema?.properties) ?? {};
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        session: security.length === 0 ? 'none' : anonymous ? 'optional' : 'required',
        requestType: operation.requestBody ? Object.keys(operation.requestBody.content)[0]! : null,
        requestFields: Object.keys(properties),
        statuses: Object.keys(operation.responses).map(Number),
      });
    }
  }
  return operations;
}

/** The documented path with each `{parameter}` replaced. */
export function concretePath(path: string, parameter: (name: string) => string): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => parameter(name));
}

// ---------------------------------------------------------------------------------------------
// Counting

/** Cases tried, per property and per endpoint, with the statuses seen: summary lines and docs. */
export class CaseCounter {
  readonly byProperty = new Map<string, Map<string, number>>();
  readonly byEndpoint = new Map<string, number>();

  constructor(private readonly suite: string) {}

  /** `outcome`: the status answered, or a word such as `reset` for a closed connection. */
  hit(property: string, endpoint: string, outcome: number | string): void {
    const outcomes = this.byProperty.get(property) ?? new Map<string, number>();
    outcomes.set(String(outcome), (outcomes.get(String(outcome)) ?? 0) + 1);
    this.byProperty.set(property, outcomes);
    this.byEndpoint.set(endpoint, (this.byEndpoint.get(endpoint) ?? 0) + 1);
  }

  count(property: string): number {
    let sum = 0;
    for (const value of this.byProperty.get(property)?.values() ?? []) sum += value;
    return sum;
  }

  /** One line per property: `fuzz bodies [pglite] login random JSON: 120 cases (400: 118, 401: 2)`. */
  report(property: string): void {
    const outcomes = [...(this.byProperty.get(property) ?? [])]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([outcome, count]) => `${outcome}: ${count}`)
      .join(', ');
    console.log(`${this.suite} ${property}: ${this.count(property)} cases (${outcomes})`);
  }

  total(): number {
    let sum = 0;
    for (const property of this.byProperty.keys()) sum += this.count(property);
    return sum;
  }

  reportTotal(): void {
    const endpoints = [...this.byEndpoint].sort(([a], [b]) => a.localeCompare(b));
    for (const [endpoint, count] of endpoints)
      console.log(`${this.suite} endpoint ${endpoint}: ${count} cases`);
    console.log(`${this.suite} TOTAL: ${this.total()} cases over ${this.byProperty.size} properties`);
  }
}

/** The own property names of Object.prototype and friends, to detect prototype pollution. */
export function prototypeFingerprint(): string {
  return JSON.stringify([
    Object.getOwnPropertyNames(Object.prototype).sort(),
    Object.getOwnPropertyNames(Array.prototype).sort(),
    Object.getOwnPropertyNames(Function.prototype).sort(),
  ]);
}
