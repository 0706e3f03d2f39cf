/**
 * The portal's Billing page asks for step-up: a login made with two factors, no older than five
 * minutes. The portal's server does what an adopter's gateway does (docs/gateways.md): before it
 * answers `GET /portal/billing` it asks Gatehouse's forward-auth check, with the browser's Cookie
 * header and the demands in the query (`?mfa=1&max_age=300`, contract 3b "Step-up for adopters"),
 * and passes a refusal (401 NOT_AUTHENTICATED, 403 MFA_REQUIRED, 403 REAUTHENTICATION_REQUIRED,
 * ...) on to the page as Gatehouse worded it. The page turns those codes into "second factor
 * needed" and "log in again".
 */
import type { IncomingMessage } from 'node:http';
import { CHECK_PATH, IDENTITY_HEADERS } from '../../src/client/wire.js';

/** How recent the login must be for the Billing page, in seconds. */
export const BILLING_MAX_AUTH_AGE_S = 300;

export interface BillingAnswer {
  status: number;
  type: string;
  body: string;
}

/** What the billing "application" shows: made up, the point is who may see it. */
const INVOICES = [
  { number: 'INV-2026-0041', amount: '1,200.00 EUR', status: 'paid' },
  { number: 'INV-2026-0042', amount: '980.00 EUR', status: 'open' },
];

export async function billingAnswer(req: IncomingMessage, gatehouse: URL): Promise<BillingAnswer> {
  const check = new URL(CHECK_PATH, gatehouse);
  check.search = new URLSearchParams({ mfa: '1', max_age: String(BILLING_MAX_AUTH_AGE_S) }).toString();
  let answer: Response;
  try {
    answer = await fetch(check, {
      headers: {
        cookie: req.headers.cookie ?? '',
        'x-forwarded-method': 'GET',
        'x-forwarded-host': req.headers.host ?? '',
        'x-forwarded-proto': 'http',
      },
      redirect: 'manual',
    });
  } catch {
    return problem(502, 'Gatehouse is not reachable from the portal');
  }
  if (answer.status === 200 || answer.status === 204) {
    const header = (name: string) => answer.headers.get(name) ?? undefined;
    const authTime = header('Gatehouse-Auth-Time');
    return {
      status: 200,
      type: 'application/json',
      body: JSON.stringify({
        username: decodeURIComponent(header(IDENTITY_HEADERS.username) ?? ''),
        // Present once Gatehouse sends them (contract 3b); the page shows what it gets.
        auth_methods: header('Gatehouse-Auth-Methods')
          ?.split(',')
          .map((method) => method.trim()),
        auth_time: authTime === undefined ? undefined : Number(authTime),
        invoices: INVOICES,
      }),
    };
  }
  // A refusal: Gatehouse's own problem+json, passed on as it is.
  return {
    status: answer.status,
    type: answer.headers.get('content-type') ?? 'application/problem+json',
    body: await answer.text(),
  };
}

function problem(status: number, title: string): BillingAnswer {
  return { status, type: 'application/problem+json', body: JSON.stringify({ title, status }) };
}
