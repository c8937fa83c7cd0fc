/**
 * One JSON line per request: request id, method, path, route, status, duration, and the API key and
 * account when there is one. Written once the answer has gone out, with the process's pino logger (no
 * logger per request). Only these fields are written, never headers or bodies, so API keys and
 * participant tokens cannot reach the logs; redaction guards the error objects logged beside them.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import type { Principal } from "../domain/api-keys.js";
import { requestIdOf } from "./request-id.js";

export const REDACT_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  "*.participant_token",
  "participant_token",
  "err.config.headers",
];

/** Counts each answered request (the metrics); route is the contract's path template, or "unmatched". */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

export function requestLogger(logger: Logger, observe?: RequestObserver): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.once("finish", () => {
      const status = res.statusCode;
      const principal = res.locals.principal as Principal | undefined;
      const route: string | undefined = (req as Request & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute ?? req.route?.path;
      const elapsed = performance.now() - started;
      // Unknown paths share one label, so a scanner cannot grow the metrics without bound.
      observe?.(route ?? "unmatched", req.method, status, elapsed / 1000);
      const line = {
        request_id: requestIdOf(res),
        req: { method: req.method, url: req.originalUrl.split("?")[0] },
        route,
        res: { status },
        duration_ms: Math.round(elapsed),
        ...(principal ? { key_id: principal.keyId, account_id: principal.accountId } : {}),
      };
      // A 503 is an outage, already logged once as a warning; only a 500 (a bug) is an error.
      if (status === 500) logger.error(line, "request");
      else if (status >= 500) logger.warn(line, "request");
      else logger.info(line, "request");
    });
    next();
  };
}
