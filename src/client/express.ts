/**
 * gatehouse-client/express: `app.use(gatehouseSession({ url }))`. A live session puts its user on
 * `req.gatehouse` and goes on; otherwise the request is answered 401, 403 or 503 (problem+json).
 * Typed structurally: Express is an optional peer, never imported.
 */
import { refusalFor } from './problem.js';
import { createSessionCheck, type GatehouseUser, type SessionCheckOptions } from './session-check.js';

export type { GatehouseUser, SessionCheckOptions } from './session-check.js';

/** What the middleware uses of Express's request and response (Node's own fields). */
interface ExpressRequest {
  headers: { cookie?: string | undefined };
}
interface ExpressResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

export function gatehouseSession(
  options: SessionCheckOptions,
): (req: ExpressRequest, res: ExpressResponse, next: (error?: unknown) => void) => void {
  const check = createSessionCheck(options);
  return (req, res, next) => {
    check(req.headers.cookie).then((result) => {
      if (result.status === 'live') {
        (req as ExpressRequest & { gatehouse?: GatehouseUser }).gatehouse = result.user;
        next();
        return;
      }
      const refusal = refusalFor(result);
      res.statusCode = refusal.status;
      for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
      res.end(refusal.body);
    }, next);
  };
}
