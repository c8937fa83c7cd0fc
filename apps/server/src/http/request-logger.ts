/**
 * One JSON line per request (pino-http): request id, method, route, status and duration. Only these
 * fields are serialized, never headers or bodies, so API keys and participant tokens cannot reach the
 * logs; redaction guards the error objects that are logged beside them.
 */
import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import { pinoHttp } from "pino-http";
import { requestIdOf } from "./request-id.js";

export const REDACT_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  "*.participant_token",
  "participant_token",
  "err.config.headers",
];

export function requestLogger(logger: Logger): RequestHandler {
  return pinoHttp<Request, Response>({
    logger,
    genReqId: (_req, res) => requestIdOf(res as Response),
    quietReqLogger: true,
    wrapSerializers: false,
    serializers: {
      req: (req: Request) => ({ method: req.method, url: req.originalUrl?.split("?")[0] }),
      res: (res: Response) => ({ status: res.statusCode }),
    },
    customAttributeKeys: { reqId: "request_id", responseTime: "duration_ms" },
    customProps: (req, res) => ({
      route: (req as Request & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute ?? req.route?.path,
      ...(res.locals?.principal ? { key_id: res.locals.principal.keyId, account_id: res.locals.principal.accountId } : {}),
    }),
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : "info"),
    customSuccessMessage: () => "request",
    customErrorMessage: () => "request",
  });
}
