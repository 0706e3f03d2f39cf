/**
 * Express 5: the session guard for a product team's own Express routes
 * (`@gatehouse-auth/gatehouse/express`). Express does not serve the API, so there is no app skin;
 * Express is imported here (types only) and nowhere else.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GatehouseUser } from '../../../client/gatehouse-user.js';
import type { Reply } from '../exchange.js';
import { guardRefusal } from '../guard-problem.js';
import { embeddedGuard, type GatehouseSessionOptions } from '../session-guard.js';

export type { GatehouseUser } from '../../../client/gatehouse-user.js';
export type { GatehouseSessionOptions, SessionGuardSource } from '../session-guard.js';

declare global {
  namespace Express {
    interface Request {
      /** Set by Gatehouse's session guard: who the session belongs to. */
      gatehouse?: GatehouseUser;
    }
  }
}

function writeExpressReply(response: Response, reply: Reply): void {
  response.status(reply.status);
  for (const [name, value] of reply.headersByName()) response.setHeader(name, value);
  const wire = reply.wire();
  if (!wire) {
    response.end();
    return;
  }
  response.setHeader('Content-Type', wire.contentType);
  response.send(wire.payload);
}

/**
 * The session guard for a product team's own Express 5 routes: the Origin check on unsafe methods,
 * the session check and the expired-credentials gate. `app.use(gatehouseSession({ gatehouse }))`
 * or on one route: the handler finds the user on `req.gatehouse`; a refusal is answered as
 * problem+json (401, 403, 503), anything else goes to Express's error handling.
 */
export function gatehouseSession(options: GatehouseSessionOptions): RequestHandler {
  const guard = embeddedGuard(options);
  return (request: Request, response: Response, next: NextFunction) => {
    guard({
      method: request.method,
      header: (name) => request.get(name) ?? '',
      // Express's own view (its `trust proxy` setting decides whether X-Forwarded-* counts).
      get ownOrigin() {
        return `${request.protocol}://${request.get('host') ?? ''}`;
      },
    }).then(
      (user) => {
        request.gatehouse = user;
        next();
      },
      (error: unknown) => {
        const refusal = guardRefusal(error);
        if (!refusal) next(error);
        else writeExpressReply(response, refusal);
      },
    );
  };
}
