/**
 * A real OTLP/HTTP trace receiver for the tracing tests: it listens on a loopback port, accepts
 * `POST /v1/traces` as OTLP/JSON or OTLP/protobuf (decoded with the OTLP protocol's own schema,
 * from @opentelemetry/otlp-transformer), and keeps every span it received, flattened.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: { code: number; message?: string };
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  resource: Record<string, unknown>;
  /** How it came: `json` or `protobuf`. */
  transport: 'json' | 'protobuf';
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}

type KeyValues = Array<{ key: string; value?: AnyValue }> | undefined;

function plainValue(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

function attributesOf(list: KeyValues): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

/** Hex from OTLP/JSON's hex string or protobuf's bytes. */
function idOf(id: unknown): string {
  if (!id) return '';
  if (typeof id === 'string') return id.toLowerCase();
  return Buffer.from(id as Uint8Array).toString('hex');
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValues };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: unknown;
        spanId: unknown;
        parentSpanId?: unknown;
        name: string;
        kind?: number;
        status?: { code?: number; message?: string };
        attributes?: KeyValues;
        events?: Array<{ name: string; attributes?: KeyValues }>;
      }>;
    }>;
  }>;
}

function flatten(request: ExportRequest, transport: ReceivedSpan['transport']): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        spans.push({
          traceId: idOf(span.traceId),
          spanId: idOf(span.spanId),
          parentSpanId: idOf(span.parentSpanId),
          name: span.name,
          kind: span.kind ?? 0,
          status: {
            code: span.status?.code ?? 0,
            ...(span.status?.message ? { message: span.status.message } : {}),
          },
          attributes: attributesOf(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: attributesOf(event.attributes),
          })),
          resource,
          transport,
        });
  }
  return spans;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The raw bodies as received (the no-secrets check reads them too). */
  readonly bodies: Buffer[];
  /** Resolves once `predicate` holds of the spans so far (polling), or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(
  decodeProtobuf?: (body: Buffer) => ExportRequest,
): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: Buffer[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(request.headers['content-type'] ?? '');
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      bodies.push(body);
      try {
        if (type.startsWith('application/json')) {
          spans.push(...flatten(JSON.parse(body.toString('utf8')) as ExportRequest, 'json'));
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else if (type.startsWith('application/x-protobuf') && decodeProtobuf) {
          spans.push(...flatten(decodeProtobuf(body), 'protobuf'));
          response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } else {
          response.writeHead(415).end();
        }
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(`spans not received in time; got: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
