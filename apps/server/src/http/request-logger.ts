/**
 * One JSON line per request: request id, method, path, route, status, duration, and the API key and
 * account when there is one. Written once the answer has gone out, with the process's pino logger (no
 * logger per request). Only these fields are written, never headers or bodies, so API keys and
 * participant tokens cannot reach the logs; redaction guards the error objects logged beside them.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import type { Principal } from "../domain/accounts/api-keys.js";
import { matchedOperation } from "./contract-validator.js";
import { requestIdOf } from "./request-id.js";

export const REDACT_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  "*.participant_token",
  "participant_token",
  "err.config.headers",
];

// What an API key (`dhs_` and base64url) or a JWT looks like, also percent-encoded, wherever a caller
// pasted one into the path.
const SECRET_SHAPED = /(dhs|dhs%5[fF])[A-Za-z0-9_%-]{8,}|eyJ[A-Za-z0-9_%-]{8,}(\.[A-Za-z0-9_%-]*){1,2}/g;

/** The request path for the log: the query dropped and secret-shaped text replaced. */
export function loggedPath(originalUrl: string): string {
  const path = originalUrl.split("?")[0] ?? "";
  return path.includes("dhs") || path.includes("eyJ") ? path.replace(SECRET_SHAPED, "[redacted]") : path;
}

/** Why a request was refused, for its log line only: the answer says less, so a prober learns nothing. */
export function setRefusalReason(res: Response, reason: string): void {
  res.locals.refusalReason = reason;
}

/** Counts each answered request (the metrics); route is the contract's path template, or "unmatched". */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

/**
 * A request line's level: a 503 is an outage, already logged once as a warning; only a 500 (a bug) is an
 * error; a refusal with its reason is a warning (a forged or stale LiveKit webhook, say); what changed
 * nothing and is expected often (a LiveKit redelivery, another tenant's room) is debug.
 */
export function requestLineLevel(status: number, reason: string | undefined, quiet = false): "error" | "warn" | "info" | "debug" {
  if (status === 500) return "error";
  if (status >= 500 || reason) return "warn";
  return quiet ? "debug" : "info";
}

export function requestLogger(logger: Logger, observe?: RequestObserver): RequestHandler {
  // The line's fields are the ones below and no redaction path names any of them (the path is scrubbed
  // by loggedPath): the logger's redaction could never change a request line and would cost nearly as
  // much as writing it.
  const log = logger.child({}, { redact: [] });
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.once("finish", () => {
      const status = res.statusCode;
      const principal = res.locals.principal as Principal | undefined;
      // The contract's template once matched; a route that names itself before (the digital human's, whose
      // 401 comes first); Express's own path (the probes, LiveKit's webhooks).
      const expressPath: unknown = req.route?.path;
      const route: string | undefined =
        matchedOperation(req)?.openApiRoute ??
        (res.locals.route as string | undefined) ??
        (typeof expressPath === "string" ? expressPath : undefined);
      const elapsed = performance.now() - started;
      // Unknown paths share one label, so a scanner cannot grow the metrics without bound.
      observe?.(route ?? "unmatched", req.method, status, elapsed / 1000);
      const line = {
        request_id: requestIdOf(res),
        req: { method: req.method, url: loggedPath(req.originalUrl) },
        route,
        res: { status },
        duration_ms: Math.round(elapsed),
        ...(principal ? { key_id: principal.keyId, account_id: principal.accountId } : {}),
        ...(res.locals.refusalReason ? { reason: res.locals.refusalReason as string } : {}),
      };
      log[requestLineLevel(status, line.reason)](line, "request");
    });
    next();
  };
}
