/**
 * gatehouse-client/express: `app.use(gatehouseSession({ url }))`. A live session puts its user on
 * `req.gatehouse` and goes on; otherwise the request is answered 401, 403 or 503 (problem+json),
 * and an unsafe request from a foreign origin 403 ORIGIN_REJECTED. Typed structurally: Express is
 * an optional peer, never imported.
 */
import { createGuard, type GatehouseSessionOptions, headerValue } from './guard.js';
import type { GatehouseUser } from './session-check.js';

export type { GatehouseSessionOptions } from './guard.js';
export type { GatehouseUser } from './session-check.js';

declare global {
  namespace Express {
    interface Request {
      /** Set by Gatehouse's session guard: who the session belongs to. */
      gatehouse?: GatehouseUser;
    }
  }
}

/** What the middleware uses of Express's request and response. */
interface ExpressRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** Express's own view (its `trust proxy` setting decides whether X-Forwarded-Proto counts). */
  protocol: string;
  gatehouse?: GatehouseUser;
}
interface ExpressResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

export function gatehouseSession(
  options: GatehouseSessionOptions,
): (req: ExpressRequest, res: ExpressResponse, next: (error?: unknown) => void) => void {
  const guard = createGuard(options);
  return (req, res, next) => {
    guard({
      method: req.method,
      header: (name) => headerValue(req.headers[name]),
      ownOrigin: `${req.protocol}://${headerValue(req.headers.host)}`,
      cookie: req.headers.cookie === undefined ? undefined : headerValue(req.headers.cookie),
    }).then((outcome) => {
      if (!outcome.refusal) {
        req.gatehouse = outcome.user;
        next();
        return;
      }
      res.statusCode = outcome.refusal.status;
      for (const [name, value] of Object.entries(outcome.refusal.headers)) res.setHeader(name, value);
      res.end(outcome.refusal.body);
    }, next);
  };
}
