/**
 * A DomainError is recognised by what it says (its brand or name, and a known code), not by which
 * copy of the class made it: a store built against the testing kit throws the kit's copy, and its
 * outage must reach the client as 503 with Retry-After, not as a 500.
 */
import { describe, expect, it } from 'vitest';
import { Reply } from '../../src/adapters/http/exchange.js';
import { writeProblem } from '../../src/adapters/http/http-core.js';
import { DomainError, isDomainError } from '../../src/domain/shared/domain-error.js';

/** Another copy of the class, as an older package carries it: the same name, no brand. */
class OtherCopyOfDomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

const BRAND = Symbol.for('gatehouse.DomainError');

/** Another copy of the current class: the registered brand, whatever its name. */
class BrandedCopy extends Error {
  readonly [BRAND] = true;
  readonly code = 'CONFLICT';
  override name = 'StoreConflict';
}

function answer(error: unknown): {
  status: number;
  retryAfter: string | undefined;
  body: Record<string, unknown>;
} {
  const reply = new Reply();
  writeProblem(reply, error, 'request-1');
  return {
    status: reply.status,
    retryAfter: reply.headers.find(([name]) => name.toLowerCase() === 'retry-after')?.[1],
    body: JSON.parse(String(reply.body)) as Record<string, unknown>,
  };
}

describe('a DomainError of another copy of the class', () => {
  it('is answered as this copy would be: SERVICE_UNAVAILABLE is 503 with Retry-After', () => {
    const foreign = new OtherCopyOfDomainError('SERVICE_UNAVAILABLE', 'The session store is unavailable.', 5);
    expect(foreign).not.toBeInstanceOf(DomainError);
    expect(answer(foreign)).toEqual(
      answer(new DomainError('SERVICE_UNAVAILABLE', foreign.message, { retryAfterS: 5 })),
    );
    expect(answer(foreign)).toMatchObject({
      status: 503,
      retryAfter: '5',
      body: { code: 'SERVICE_UNAVAILABLE' },
    });
  });

  it('rounds a fractional Retry-After up to whole seconds', () => {
    expect(answer(new OtherCopyOfDomainError('SERVICE_UNAVAILABLE', 'down', 2.5)).retryAfter).toBe('3');
  });

  it('is recognised by the brand of the current class under any name', () => {
    expect(isDomainError(new BrandedCopy('taken'))).toBe(true);
    expect(answer(new BrandedCopy('taken'))).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT', detail: 'taken' },
    });
  });

  it('stays a 500 that says nothing when it is not one: an unknown code, another name, a plain object', () => {
    const secret = 'connection to 10.0.0.7 refused';
    for (const error of [
      new OtherCopyOfDomainError('ECONNREFUSED', secret),
      Object.assign(new Error(secret), { code: 'SERVICE_UNAVAILABLE' }),
      { name: 'DomainError', code: 'SERVICE_UNAVAILABLE', message: secret },
      new OtherCopyOfDomainError('SERVICE_UNAVAILABLE', secret, -1),
    ]) {
      expect(isDomainError(error)).toBe(false);
      const problem = answer(error);
      expect(problem).toMatchObject({ status: 500, retryAfter: undefined, body: { code: 'INTERNAL_ERROR' } });
      expect(JSON.stringify(problem.body)).not.toContain('10.0.0.7');
    }
  });
});
