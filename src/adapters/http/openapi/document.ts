import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { ErrorCode } from '../../../domain/shared/domain-error.js';
import { STATUS_BY_CODE, TITLE_BY_CODE } from '../problem.js';
import { isGuarded, type Route, type RouteResponse, refusesExpiredCredentials } from '../route.js';
import { problemSchema } from '../schemas.js';

type Json = Record<string, unknown>;

export interface OpenApiDocumentOptions {
  /** The route table as served: every route is documented, and nothing else. */
  routes: readonly Route[];
  /** The configured session cookie name (COOKIE_NAME). */
  cookieName: string;
  /** The service version (package.json). */
  version: string;
}

/** Every error code a route may answer, in a stable order: its own, then those its kind implies. */
export function errorCodesOf(route: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.openapi.errors);
  if (route.request) {
    codes.add('INVALID_REQUEST');
    codes.add('PAYLOAD_TOO_LARGE');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
  }
  if (route.method !== 'GET') codes.add('ORIGIN_REJECTED');
  if (isGuarded(route.session)) {
    codes.add('NOT_AUTHENTICATED');
    // A pending session where the rule does not admit its stage (contract 3b).
    codes.add('MFA_REQUIRED');
  }
  if (refusesExpiredCredentials(route.session)) codes.add('PASSWORD_EXPIRED');
  if (route.session === 'pending-second-factor') codes.add('MFA_NOT_APPLICABLE');
  codes.add('INTERNAL_ERROR');
  return [...codes];
}

/** The path as OpenAPI writes it: the router's `:name` parameters as `{name}`. */
export function openApiPath(routePath: string): string {
  return routePath.replace(/:(\w+)/g, '{$1}');
}

const COMPONENT_REF = '#/components/schemas/';
const SECURITY_SCHEME = 'sessionCookie';

/** Rewrites zod's `#/$defs/X` references to the document's `#/components/schemas/X`. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
        ? COMPONENT_REF + inner.slice('#/$defs/'.length)
        : rewriteRefs(inner);
  }
  return out;
}

/**
 * Converts zod schemas with zod's own `z.toJSONSchema` (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1) and gathers every schema that carries a `.meta({ id })` into components.
 * Requests are converted as zod's input (unknown fields allowed: they are ignored), answers as
 * its output (`additionalProperties: false`: nothing undocumented is ever sent).
 */
class SchemaComponents {
  readonly schemas: Record<string, unknown> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): unknown {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'throw',
      reused: 'inline',
    }) as Json;
    const { $schema: _dialect, $defs, ...rest } = json;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Json)) {
      this.#add(id, rewriteRefs(definition));
    }
    return rewriteRefs(rest);
  }

  #add(id: string, definition: unknown): void {
    const known = this.schemas[id];
    if (known !== undefined && !isDeepStrictEqual(known, definition)) {
      throw new Error(`OpenAPI: two different schemas carry the id "${id}"`);
    }
    this.schemas[id] = definition;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function headerComponents(cookieName: string): Json {
  const name = escapeRegExp(cookieName);
  return {
    'X-Request-Id': {
      description: 'Identifies the request; equals `request_id` of a problem body and appears in the log.',
      required: true,
      schema: { type: 'string' },
    },
    'Retry-After': {
      description: 'Seconds to wait before trying again.',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
    SetSessionCookie: {
      description:
        `The new session: \`${cookieName}=<id>; Path=/; Max-Age=<absolute lifetime>; HttpOnly; Secure; ` +
        'SameSite=Lax` (name, Domain, Secure and SameSite as configured). Send it back on every request.',
      required: true,
      schema: { type: 'string', pattern: `^${name}=[A-Za-z0-9_-]+;` },
    },
    ClearSessionCookie: {
      description: `Clears the session cookie: \`${cookieName}=; Path=/; Max-Age=0; ...\`.`,
      required: true,
      schema: { type: 'string', pattern: `^${name}=;` },
    },
  };
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

function successResponse(response: RouteResponse, components: SchemaComponents): Json {
  const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (response.setCookie === 'session') headers['Set-Cookie'] = headerRef('SetSessionCookie');
  if (response.setCookie === 'cleared') headers['Set-Cookie'] = headerRef('ClearSessionCookie');
  if (response.retryAfter) headers['Retry-After'] = headerRef('Retry-After');
  for (const [name, header] of Object.entries(response.headers ?? {}))
    headers[name] = {
      description: header.description,
      required: header.required,
      schema: { type: 'string' },
    };
  if (!response.schema) return { description: response.description, headers };
  return {
    description: response.description,
    headers,
    content: {
      [response.mediaType ?? 'application/json']: { schema: components.convert(response.schema, 'output') },
    },
  };
}

/** One response per status: a problem document whose `code` is one of that status's codes here. */
function problemResponses(codes: readonly ErrorCode[]): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = STATUS_BY_CODE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
    if (status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After');
    const first = statusCodes[0]!;
    responses[String(status)] = {
      description: statusCodes.map((code) => `\`${code}\`: ${TITLE_BY_CODE[code]}.`).join(' '),
      headers,
      content: {
        'application/problem+json': {
          schema: {
            allOf: [{ $ref: `${COMPONENT_REF}Problem` }],
            properties: { status: { const: status }, code: { enum: statusCodes } },
          },
          example: {
            type: 'about:blank',
            title: TITLE_BY_CODE[first],
            status,
            code: first,
            detail: `${TITLE_BY_CODE[first]}.`,
            request_id: '0b6d81b1-8ed7-446c-a6db-98bb728b9796',
          },
        },
      },
    };
  }
  return responses;
}

function security(route: Route): Json[] {
  switch (route.session) {
    case 'live':
    case 'live-expired-allowed':
    case 'pending-second-factor':
    case 'live-or-enrolment':
      return [{ [SECURITY_SCHEME]: [] }];
    case 'optional':
      return [{}, { [SECURITY_SCHEME]: [] }];
    case 'none':
      return [];
  }
}

function operationObject(route: Route, components: SchemaComponents): Json {
  const docs = route.openapi;
  const responses: Json = {};
  for (const response of docs.responses) {
    responses[String(response.status)] = successResponse(response, components);
  }
  for (const [status, response] of Object.entries(problemResponses(errorCodesOf(route)))) {
    if (responses[status]) throw new Error(`OpenAPI: ${docs.operationId} documents ${status} twice`);
    responses[status] = response;
  }
  return {
    operationId: docs.operationId,
    tags: [docs.tag],
    summary: docs.summary,
    ...(docs.description ? { description: docs.description } : {}),
    security: security(route),
    ...(docs.pathParameters || docs.queryParameters
      ? {
          parameters: [
            ...(docs.pathParameters ?? []).map((parameter) => ({
              name: parameter.name,
              in: 'path',
              required: true,
              description: parameter.description,
              schema: components.convert(parameter.schema, 'input'),
            })),
            ...(docs.queryParameters ?? []).map((parameter) => ({
              name: parameter.name,
              in: 'query',
              required: false,
              description: parameter.description,
              schema: components.convert(parameter.schema, 'input'),
            })),
          ],
        }
      : {}),
    ...(route.request
      ? {
          requestBody: {
            required: !route.request.optional,
            content: {
              [route.request.mediaType ?? 'application/json']: {
                schema: components.convert(route.request.schema, 'input'),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the service, built once at start-up from the route table itself:
 * each route's method, path, session rule, body and OpenAPI text, and the zod schemas it uses.
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): Json {
  const components = new SchemaComponents();
  components.convert(problemSchema, 'output');
  const paths: Record<string, Json> = {};
  for (const route of options.routes) {
    const path = openApiPath(route.path);
    const method = route.method.toLowerCase();
    const item = paths[path] ?? {};
    paths[path] = item;
    if (item[method]) throw new Error(`OpenAPI: ${route.method} ${route.path} twice`);
    item[method] = operationObject(route, components);
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Gatehouse',
      version: options.version,
      description:
        'Login and session service: username/password and OpenID Connect single sign-on logins ' +
        'creating a session carried by a cookie. Errors are RFC 9457 problem documents with a ' +
        'stable `code` member.',
    },
    tags: [
      { name: 'session', description: 'Password login, the session, password change, logout.' },
      { name: 'sso', description: 'OpenID Connect single sign-on.' },
      { name: 'operations', description: 'Health, readiness, this document, metrics.' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b))),
      headers: headerComponents(options.cookieName),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'apiKey',
          in: 'cookie',
          name: options.cookieName,
          description: 'The session cookie set by a login (HttpOnly; browsers send it themselves).',
        },
      },
    },
  };
}
