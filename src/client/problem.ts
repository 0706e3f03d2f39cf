import { randomUUID } from 'node:crypto';
import { GUARD_REFUSALS, type GuardRefusalKind } from './wire.js';

/** A refusal as the service answers it: RFC 9457 problem+json with its stable code. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answer for a request that does not pass; `detail` in place of the usual one. */
export function refusalFor(kind: GuardRefusalKind, detail?: string): Refusal {
  const refusal = GUARD_REFUSALS[kind];
  const requestId = randomUUID();
  return {
    status: refusal.status,
    headers: {
      'content-type': 'application/problem+json; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': requestId,
      ...(refusal.status === 503 ? { 'retry-after': '5' } : {}),
    },
    body: JSON.stringify({
      type: 'about:blank',
      title: refusal.title,
      status: refusal.status,
      code: refusal.code,
      detail: detail ?? refusal.detail,
      request_id: requestId,
    }),
  };
}
