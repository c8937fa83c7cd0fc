/**
 * The digital human's operations (tag *Digital human workers*: every operation of the contract's
 * digitalHumanToken scheme, each answered by its feature's handler). Under /v1 and in the contract like every operation, but
 * answered ahead of the API-key pipeline: their caller holds no API key but a LiveKit token bound to the
 * session's room (livekit/digital-human-token.ts), checked before the body is read (401, and the
 * connection learns nothing else), then the session's rate limit, the contract's match and validation,
 * and the call.
 */
import { type DigitalHumanOperationId, operationList } from "@dhs/contract";
import type { NextFunction, Request, RequestHandler, Response, Router } from "express";
import type { RateLimiter } from "../../domain/accounts/rate-limiter.js";
import { AppError } from "../../domain/app-error.js";
import { type DigitalHumanTokens, InvalidDigitalHumanTokenError } from "../../livekit/digital-human-token.js";
import type { ContractValidator } from "../contract-validator.js";
import { takesBody } from "../contract-validator.js";
import { answer } from "../operation-handler.js";
import type { DigitalHumanCaller, DigitalHumanOperationHandlers } from "../operations.js";
import { pipeline } from "../pipeline.js";
import { rateLimit } from "../rate-limit.js";
import { jsonBody } from "../request-guards.js";
import { setRefusalReason } from "../request-logger.js";
import { exactRouter } from "./exact-router.js";

interface DigitalHumanRoute {
  operationId: DigitalHumanOperationId;
  // Matched without a route parameter: the contract's match reads (and decodes) the session id, so a
  // malformed one is answered as everywhere else in /v1, never by Express's own parameter decoding.
  path: RegExp;
  route: string;
}

/** The contract's digitalHumanToken operations, each path template as a pattern of one segment per parameter. */
const ROUTES: readonly DigitalHumanRoute[] = operationList.flatMap((op) => {
  if (op.scheme !== "digitalHumanToken") return [];
  // Every one of them sends a body to act on; a GET would need its own route below.
  const method: string = op.method;
  if (method !== "POST") throw new Error(`${op.operationId}: the digital human's operations are POSTs`);
  const pattern = op.path
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\/]/g, "\\$&"))
    .join("[^/]+");
  return [{ operationId: op.operationId as DigitalHumanOperationId, path: new RegExp(`^${pattern}$`), route: op.path }];
});

export function digitalHumanRoutes(deps: {
  /** Each operation's handler, by the features that answer them (features/feature.ts). */
  handlers: DigitalHumanOperationHandlers;
  tokens: DigitalHumanTokens;
  validator: ContractValidator;
  /** Each session's digital human is limited as an API key is ("/" is in no key id, so no bucket is shared). */
  rateLimiter: RateLimiter | undefined;
  maxBodyBytes: number;
}): Router {
  const router = exactRouter();
  const refuse = (res: Response, next: NextFunction, reason: string) => {
    setRefusalReason(res, reason);
    next(unauthorized());
  };
  const authenticate =
    (operationId: DigitalHumanOperationId, route: string): RequestHandler =>
    async (req: Request, res: Response, next: NextFunction) => {
      res.setHeader("Cache-Control", "no-store");
      // Named from the start, so the request's log line, metrics and span say which operation a 401 refused.
      res.locals.operationId = operationId;
      res.locals.route = route;
      try {
        const { sessionId, identity } = await deps.tokens.verify(req.get("Authorization"));
        res.locals.transcriptSession = sessionId;
        res.locals.tokenIdentity = identity;
        next();
      } catch (error) {
        if (!(error instanceof InvalidDigitalHumanTokenError)) throw error;
        refuse(res, next, error.message);
      }
    };
  // The token is for one room: another session's path is not this token's to write (checked once the
  // contract matched the path, before the body is read).
  const ownSession: RequestHandler = (req, res, next) => {
    if (String(req.params.session_id).toLowerCase() !== tokenSession(res)) {
      return refuse(res, next, "the token is for another session's room");
    }
    next();
  };
  const callerOf = (res: Response): DigitalHumanCaller => ({
    sessionId: tokenSession(res),
    speaksFor: (identity) => {
      if (identity === res.locals.tokenIdentity) return;
      setRefusalReason(res, "the token is for another participant identity");
      throw unauthorized();
    },
  });
  const bind = <Id extends DigitalHumanOperationId>(operationId: Id): RequestHandler => {
    const handler = deps.handlers[operationId];
    return answer(operationId, (request, res) => handler(request, callerOf(res)));
  };
  for (const { operationId, path, route } of ROUTES) {
    router.post(
      path,
      pipeline([
        authenticate(operationId, route),
        ...(deps.rateLimiter ? [rateLimit(deps.rateLimiter, (res) => `session/${tokenSession(res)}`)] : []),
        ...deps.validator.match,
        ownSession,
        jsonBody(deps.maxBodyBytes, takesBody),
        ...deps.validator.validate,
        bind(operationId),
      ]),
    );
  }
  return router;
}

/** The session whose room the request's token is for, once `authenticate` verified it. */
function tokenSession(res: Response): string {
  const session: unknown = res.locals.transcriptSession;
  if (typeof session !== "string") throw new Error("transcript segments reached without a digital human token");
  return session;
}

function unauthorized(): AppError {
  return new AppError(
    "unauthorized",
    "Missing or invalid digital human token: send a LiveKit access token with an agent grant for the session's room, signed for the participant identity the request names, as the Authorization header's bearer token.",
    { headers: { "WWW-Authenticate": 'Bearer realm="dhs-digital-human"' } },
  );
}
