import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { isDomainError } from '../../domain/shared/domain-error.js';

/** Gatehouse's own tracer; its spans are children of whatever span is active (the request's). */
export const tracer = trace.getTracer('gatehouse');

/** The attribute names Gatehouse sets on its own spans (docs/operations.md lists them). */
export const ATTRIBUTES = {
  outcome: 'gatehouse.outcome',
  tenant: 'gatehouse.tenant_id',
  provider: 'gatehouse.provider_id',
  endpoint: 'gatehouse.provider.endpoint',
  user: 'enduser.id',
} as const;

/**
 * Runs `work` in a span named `name`: its outcome is `ok`, or the problem code of the DomainError
 * it threw (status ERROR with that code; anything else is `INTERNAL_ERROR` and recorded as an
 * exception by type only, never its message: a driver's message may quote a value).
 * `describe` adds what the result tells (a tenant, a user id), never a secret.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  describe?: (result: T) => Attributes,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      const result = await work(span);
      span.setAttributes({ ...(describe?.(result) ?? {}), [ATTRIBUTES.outcome]: 'ok' });
      return result;
    } catch (error) {
      const code = isDomainError(error) ? error.code : 'INTERNAL_ERROR';
      span.setAttribute(ATTRIBUTES.outcome, code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      if (!isDomainError(error))
        span.addEvent('exception', { 'exception.type': (error as Error | null)?.name ?? typeof error });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** How one method of a use case is traced: its span's name and what its arguments and result tell. */
export interface TracedMethod {
  span: string;
  attributes?: (...args: never[]) => Attributes;
  describe?: (result: never) => Attributes;
}

/**
 * The use case `target` with each method of `methods` run in a span; everything else is the
 * target's own. A wrapper, so no use case knows about tracing (bound in src/boot only when on).
 */
export function tracedObject<T extends object>(
  target: T,
  methods: Partial<Record<keyof T, TracedMethod>>,
): T {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const known = cache.get(property);
      if (known) return known;
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      const how = methods[property as keyof T];
      const method = value as (...args: unknown[]) => unknown;
      const wrapped = how
        ? (...args: unknown[]) =>
            inSpan(
              how.span,
              how.attributes ? (how.attributes as (...a: unknown[]) => Attributes)(...args) : {},
              async () => method.apply(object, args),
              how.describe as ((result: unknown) => Attributes) | undefined,
            )
        : method.bind(object);
      cache.set(property, wrapped);
      return wrapped;
    },
  });
}
