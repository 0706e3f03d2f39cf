import type { IncomingMessage } from 'node:http';

/**
 * One HTTP request as every transport presents it to Gatehouse's routes: what Koa's `ctx` and
 * Fastify's `request` both know, in the words the routes need. The transports build it; nothing
 * here imports a framework.
 */
export interface HttpRequest {
  readonly method: string;
  /** The path without the query, trailing slash normalised (contract 1). */
  readonly path: string;
  /** A request header by its lower-case name; '' when absent. */
  header(name: string): string;
  readonly query: Readonly<Record<string, string | string[] | undefined>>;
  /** Path parameters of the matched route (`:handle`). */
  readonly params: Readonly<Record<string, string>>;
  /** The client's address as the transport trusts it (TRUST_PROXY hops), null when unknown. */
  readonly clientAddress: string | null;
  /** `<protocol>://<host>` of this request as the transport sees it (the Origin check). */
  readonly ownOrigin: string;
  /** The request stream, for the body readers (json-body.ts, form-body.ts) only. */
  readonly raw: IncomingMessage;
}

/**
 * What a route answers, written back by the transport: a status, headers (Set-Cookie may repeat)
 * and a body, an object sent as JSON or a text with its type.
 */
export class Reply {
  status = 200;
  readonly headers: Array<[string, string]> = [];
  body: unknown = undefined;
  /** Set for a text body; a JSON body is `application/json; charset=utf-8`. */
  contentType: string | undefined = undefined;

  header(name: string, value: string): this {
    this.headers.push([name, value]);
    return this;
  }

  /** Replaces every earlier value of `name`. */
  setHeader(name: string, value: string): this {
    const lower = name.toLowerCase();
    for (let i = this.headers.length - 1; i >= 0; i--)
      if (this.headers[i]![0].toLowerCase() === lower) this.headers.splice(i, 1);
    return this.header(name, value);
  }

  cookie(setCookie: string): this {
    return this.header('Set-Cookie', setCookie);
  }

  json(body: unknown): void {
    this.body = body;
    this.contentType = undefined;
  }

  text(contentType: string, text: string): void {
    this.body = text;
    this.contentType = contentType;
  }

  /** The headers one entry per name, as frameworks set them: a repeated name (Set-Cookie) as a list. */
  headersByName(): Array<[string, string | string[]]> {
    const byName = new Map<string, [string, string[]]>();
    for (const [name, value] of this.headers) {
      const entry = byName.get(name.toLowerCase());
      if (entry) entry[1].push(value);
      else byName.set(name.toLowerCase(), [name, [value]]);
    }
    return [...byName.values()].map(([name, values]) => [name, values.length === 1 ? values[0]! : values]);
  }

  /** The body as sent on the wire, and its type. */
  wire(): { contentType: string; payload: string } | null {
    if (this.body === undefined) return null;
    if (typeof this.body === 'string' && this.contentType)
      return { contentType: this.contentType, payload: this.body };
    return {
      contentType: this.contentType ?? 'application/json; charset=utf-8',
      payload: JSON.stringify(this.body),
    };
  }
}
