import { expect } from 'vitest';
import type { TestClient } from './test-server.js';

/** An answer as TestClient reads it. */
export type TestResponse = Awaited<ReturnType<TestClient['request']>>;

/**
 * A problem+json answer (RFC 9457) with this status and code, `type` about:blank, and the id of
 * the request it answers (the one in X-Request-Id), by which a report finds its log lines.
 */
export function expectProblem(response: TestResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: 'about:blank', status, code });
  expect(response.body.request_id).toBe(response.headers.get('x-request-id'));
}
