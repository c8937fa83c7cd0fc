/**
 * The API's operations by the contract's operationId. The validator has already matched each request to
 * its operation (the match authorization read its scopes from); that match also picks the handler, so a
 * request is routed once, by the contract, and no second table of paths can disagree with it. The types
 * make the table complete and each entry exact: an operation added to the contract does not compile
 * until it has a handler, and each handler takes its operation's request and returns its reply
 * (operation-handler.ts).
 */
import type { ApiKeyOperationId, DigitalHumanOperationId } from "@dhs/contract";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Principal } from "../domain/accounts/api-keys.js";
import { principalOf } from "./authenticate.js";
import { matchedOperation } from "./contract-validator.js";
import { unknownRoute } from "./error-handler.js";
import { answer, type OperationReply, type OperationRequest } from "./operation-handler.js";

/**
 * Translates one operation's HTTP request, typed by the contract, to a call for the authenticated
 * principal, and its result back to the contract's reply.
 */
export type OperationHandler<Id extends ApiKeyOperationId> = (
  request: OperationRequest<Id>,
  principal: Principal,
) => OperationReply<Id> | Promise<OperationReply<Id>>;

/**
 * Every operation an API key calls: not `receiveSessionEvent` (the webhook this service sends), nor
 * the digital human's (`appendTranscriptSegments`, `pullConversation`, `reportConversation`, answered ahead of this table: routes/digital-human-routes.ts).
 */
export type OperationHandlers = { [Id in ApiKeyOperationId]: OperationHandler<Id> };

/** Who called one of the digital human's operations, once its token was verified (routes/digital-human-routes.ts). */
export interface DigitalHumanCaller {
  /** The session whose room the token is for. */
  sessionId: string;
  /**
   * Refuses (401) unless `identity` is the token's own: the job speaks for itself only, in the identity a
   * pull names (where the service's nudges go) and the one its reports and recordings are signed for.
   */
  speaksFor(identity: string): void;
}

export type DigitalHumanOperationHandler<Id extends DigitalHumanOperationId> = (
  request: OperationRequest<Id>,
  caller: DigitalHumanCaller,
) => OperationReply<Id> | Promise<OperationReply<Id>>;

/** Every operation the digital human calls with its LiveKit token, complete as the API keys' table is. */
export type DigitalHumanOperationHandlers = { [Id in DigitalHumanOperationId]: DigitalHumanOperationHandler<Id> };

/** The table's handler of one operation as middleware, for the principal authentication found. */
function bind<Id extends ApiKeyOperationId>(handlers: OperationHandlers, operationId: Id): RequestHandler {
  const handler: OperationHandler<Id> = handlers[operationId];
  return answer(operationId, (request, res) => handler(request, principalOf(res)));
}

export function dispatch(handlers: OperationHandlers): RequestHandler {
  const ids = Object.keys(handlers) as ApiKeyOperationId[];
  const table = new Map<string, RequestHandler>(ids.map((id) => [id, bind(handlers, id)]));
  return (req: Request, res: Response, next: NextFunction): void | Promise<void> => {
    const operation = matchedOperation(req);
    const id = operation?.schema?.operationId;
    const handler = id === undefined ? undefined : table.get(id);
    // Authorization refused every request without an operation already; this is the second lock.
    if (handler === undefined) return next(unknownRoute(req));
    res.locals.operationId = id;
    res.locals.route = operation?.openApiRoute;
    return handler(req, res, next) as void | Promise<void>;
  };
}
