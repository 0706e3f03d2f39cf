/**
 * Checks live HTTP answers against Gatehouse's own OpenAPI document: the operation exists, the
 * status is documented for it, the content type is one it documents, the body validates against
 * that response's schema (JSON Schema 2020-12, with ajv), and the headers it marks required are
 * there and well-formed (Set-Cookie, Retry-After, X-Request-Id).
 *
 *   const conformance = await OpenApiConformance.load(server.url);
 *   const response = await client.post('/api/v1/login/', { username, password });
 *   conformance.assert('POST', '/api/v1/login/', response);
 */

import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const DOCUMENT_ID = 'urn:gatehouse:openapi';

/** What the check needs of an answer; TestClient's result has it all. */
export interface LiveResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body (TestClient's `body`); parsed from `text` when absent. */
  body?: unknown;
  text?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: documents and answers of every shape, walked by pointer
type Json = Record<string, any>;

function pointer(...segments: string[]): string {
  return `${DOCUMENT_ID}#/${segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

function mediaTypeOf(header: string | null): string | null {
  return header ? header.split(';', 1)[0]!.trim().toLowerCase() : null;
}

export class OpenApiConformance {
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #templates: Array<{ template: string; pattern: RegExp }>;

  constructor(readonly document: Json) {
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.#templates = Object.keys(document.paths ?? {}).map((template) => ({
      template,
      pattern: new RegExp(
        `^${template
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('')}$`,
      ),
    }));
    // OpenAPI 3.1 path matching: a concrete path wins over a templated one
    // (`/api/v1/sessions/revoke-others/` before `/api/v1/sessions/{handle}/`).
    const parameters = (template: string) => template.split('{').length - 1;
    this.#templates.sort((a, b) => parameters(a.template) - parameters(b.template));
  }

  /** Fetches the live document of the server at `baseUrl`. */
  static async load(baseUrl: string): Promise<OpenApiConformance> {
    const response = await fetch(new URL('/api/v1/openapi.json', baseUrl));
    if (response.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
    return new OpenApiConformance((await response.json()) as Json);
  }

  /** The documented path template a concrete path falls under (trailing slash optional). */
  templateOf(path: string): string | null {
    const bare = path.split('?', 1)[0]!;
    for (const candidate of bare.endsWith('/') ? [bare] : [bare, `${bare}/`]) {
      const found = this.#templates.find(({ pattern }) => pattern.test(candidate));
      if (found) return found.template;
    }
    return null;
  }

  /** Every way `response` departs from the document; empty when it conforms. */
  check(method: string, path: string, response: LiveResponse): string[] {
    const where = `${method.toUpperCase()} ${path} → ${response.status}`;
    const template = this.templateOf(path);
    if (!template) return [`${where}: the path is not in the document`];
    const verb = method.toLowerCase();
    const operation = this.document.paths[template]?.[verb] as Json | undefined;
    if (!operation) return [`${where}: ${verb.toUpperCase()} ${template} is not in the document`];
    const status = String(response.status);
    const responseKey = operation.responses?.[status]
      ? status
      : operation.responses?.default
        ? 'default'
        : null;
    if (!responseKey) {
      return [
        `${where}: status not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`,
      ];
    }
    const documented = operation.responses[responseKey] as Json;
    const problems: string[] = [];

    for (const [name, headerOrRef] of Object.entries((documented.headers ?? {}) as Json)) {
      const ref = (headerOrRef as Json).$ref as string | undefined;
      const header = (ref ? this.#resolve(ref) : headerOrRef) as Json;
      const headerPointer = ref
        ? `${DOCUMENT_ID}${ref}/schema`
        : pointer('paths', template, verb, 'responses', responseKey, 'headers', name, 'schema');
      const raw =
        name.toLowerCase() === 'set-cookie'
          ? response.headers.getSetCookie().join(', ') || null
          : response.headers.get(name);
      if (raw === null) {
        if (header.required) problems.push(`${where}: header ${name} missing`);
        continue;
      }
      if (!header.schema) continue;
      const type = (header.schema as Json).type;
      const value = type === 'integer' || type === 'number' ? Number(raw) : raw;
      const validate = this.#validator(headerPointer);
      if (!validate(value)) {
        problems.push(`${where}: header ${name}: ${this.#ajv.errorsText(validate.errors)} (got ${raw})`);
      }
    }

    const content = documented.content as Json | undefined;
    if (!content) return problems;
    const mediaType = mediaTypeOf(response.headers.get('content-type'));
    if (!mediaType || !(mediaType in content)) {
      problems.push(
        `${where}: content type ${mediaType ?? '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`,
      );
      return problems;
    }
    if (!content[mediaType].schema) return problems;
    let body: unknown = response.body;
    if (mediaType.endsWith('json') || mediaType.endsWith('+json')) {
      if (body === undefined) {
        try {
          body = JSON.parse(response.text ?? '');
        } catch {
          problems.push(`${where}: the body is not JSON`);
          return problems;
        }
      }
    } else {
      body = response.text ?? body;
    }
    const validate = this.#validator(
      pointer('paths', template, verb, 'responses', responseKey, 'content', mediaType, 'schema'),
    );
    if (!validate(body)) {
      problems.push(
        `${where}: body: ${this.#ajv.errorsText(validate.errors, { separator: '; ' })}\n  ${JSON.stringify(body)}`,
      );
    }
    return problems;
  }

  /** Throws an Error listing every departure of `response` from the document. */
  assert(method: string, path: string, response: LiveResponse): void {
    const problems = this.check(method, path, response);
    if (problems.length > 0) throw new Error(`Not as documented:\n${problems.join('\n')}`);
  }

  #resolve(ref: string): unknown {
    let node: unknown = this.document;
    for (const segment of ref.replace(/^#\//, '').split('/')) {
      node = (node as Json)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return node;
  }

  #validator(ref: string): ValidateFunction {
    let validate = this.#validators.get(ref);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: ref });
      this.#validators.set(ref, validate);
    }
    return validate;
  }
}
