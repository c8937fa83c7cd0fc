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
    // A 503 is an outage already logged once as a warning; only a 500 (a bug) is an error.
    customLogLevel: (_req, res, err) => (err || res.statusCode === 500 ? "error" : res.statusCode >= 500 ? "warn" : "info"),
    // pino-http invents an Error with a stack for every 5xx; the error handler logs the real one.
    customErrorObject: (_req, _res, _err, value: Record<string, unknown>) => {
      const { err: _synthetic, ...rest } = value;
      return rest;
    },
    customSuccessMessage: () => "request",
    customErrorMessage: () => "request",
  });
}
