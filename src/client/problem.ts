import { randomUUID } from 'node:crypto';

/** A refusal as the service answers it: RFC 9457 problem+json with its stable code. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const REFUSALS = {
  'cross-site': {
    status: 403,
    code: 'ORIGIN_REJECTED',
    title: 'Origin rejected',
    detail: 'Requests from this origin are not accepted.',
  },
  none: { status: 401, code: 'NOT_AUTHENTICATED', title: 'Not authenticated', detail: 'Log in first.' },
  expired: {
    status: 403,
    code: 'PASSWORD_EXPIRED',
    title: 'Password expired',
    detail: 'The password has expired. Change it before doing anything else.',
  },
  unavailable: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    title: 'Service unavailable',
    detail: 'The session could not be checked. Try again shortly.',
  },
} as const;

export type RefusalKind = keyof typeof REFUSALS;

/** The answer for a request that does not pass; `detail` in place of the usual one. */
export function refusalFor(kind: RefusalKind, detail?: string): Refusal {
  const refusal = REFUSALS[kind];
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
