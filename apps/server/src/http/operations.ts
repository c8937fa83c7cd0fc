/**
 * The API's operations by the contract's operationId. The validator has already matched each request to
 * its operation (the match authorization read its scopes from); that match also picks the handler, so a
 * request is routed once, by the contract, and no second table of paths can disagree with it. The type
 * makes the table complete: an operation added to the contract does not compile until it has a handler.
 */
import type { operations } from "@dhs/contract";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { matchedOperation } from "./contract-validator.js";
import { unknownRoute } from "./error-handler.js";

/**
 * Every operation an API key calls: not `receiveSessionEvent` (the webhook this service sends), nor
 * `appendTranscriptSegments` (the digital human's, answered ahead of this table: routes/transcript-segments.ts).
 */
export type ApiOperationId = Exclude<keyof operations, "receiveSessionEvent" | "appendTranscriptSegments">;

/** Translates one operation's HTTP request to a call and its result back; path parameters are in req.params. */
export type OperationHandler = (req: Request, res: Response) => void | Promise<void>;

export type OperationHandlers = Record<ApiOperationId, OperationHandler>;

export function dispatch(handlers: OperationHandlers): RequestHandler {
  const table = new Map<string, OperationHandler>(Object.entries(handlers));
  return (req: Request, res: Response, next: NextFunction): void | Promise<void> => {
    const operation = matchedOperation(req);
    const id = operation?.schema?.operationId;
    const handler = id === undefined ? undefined : table.get(id);
    // Authorization refused every request without an operation already; this is the second lock.
    if (handler === undefined) return next(unknownRoute(req));
    res.locals.operationId = id;
    res.locals.route = operation?.openApiRoute;
    return handler(req, res);
  };
}
