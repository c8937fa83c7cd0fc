/**
 * The one place where errors become HTTP answers. Whatever is thrown or passed to next() is translated to
 * an AppError (ours as they are; a dependency outage to 503; body-parser's and express-openapi-validator's
 * errors to 413, 422, 404 or 405; anything else to a logged 500 without a stack), and every body is the
 * contract's ApiError whose request_id equals the X-Request-ID header.
 */
import type { ServerResponse } from "node:http";
import type { ApiError } from "@dhs/contract";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "../domain/app-error.js";
import { type Dependency, DependencyUnavailableError } from "../domain/dependency-errors.js";
import { STATUS_OF } from "./error-status.js";
import { requestIdOf } from "./request-id.js";

export type ErrorLogger = (error: unknown, requestId: string) => void;

export interface ValidationIssue {
  location: "body" | "header" | "path" | "query";
  path: string;
  message: string;
}

const UNAVAILABLE_DETAIL = {
  store: "The session store is temporarily unavailable.",
  database: "The history database is temporarily unavailable.",
  livekit: "LiveKit is temporarily unavailable.",
  recording_storage: "The recordings' store is temporarily unavailable.",
} as const satisfies Record<Dependency, string>;

const INTERNAL_DETAIL = "An unexpected error occurred. Quote the request id to support.";

/** What each of the contract's path ids names, for the 404 a malformed one gets. */
const RESOURCE_OF_PATH_ID: Record<string, string> = {
  session_id: "session",
  endpoint_id: "webhook endpoint",
  digital_human_id: "digital human",
  document_id: "document",
};

const LOCATIONS: Record<string, ValidationIssue["location"]> = { body: "body", headers: "header", query: "query", params: "path" };

function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** express-openapi-validator's `/body/tags/0` becomes {location: body, path: tags.0}. */
function issueFrom(item: { path?: string; message?: string }): ValidationIssue {
  const [, where = "body", ...rest] = (item.path ?? "").split(/[/.]/);
  const location = LOCATIONS[where] ?? "body";
  const path = location === "header" ? headerName(rest.join("-")) : rest.join(".");
  return { location, path, message: item.message ?? "is invalid" };
}

function validationFailed(issues: ValidationIssue[]): AppError {
  return new AppError("validation_failed", issues);
}

interface HttpLikeError {
  status?: number;
  type?: string;
  errors?: { path?: string; message?: string }[];
  headers?: Record<string, string>;
  message?: string;
  /** body-parser's limit, on entity.too.large. */
  limit?: number;
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof DependencyUnavailableError) {
    return new AppError("service_unavailable", UNAVAILABLE_DETAIL[error.dependency], { retryAfterSeconds: 1, cause: error });
  }
  const e = (typeof error === "object" && error !== null ? error : {}) as HttpLikeError;
  // Express's router, on a route outside the contract (the recordings' files): a path parameter whose
  // percent-encoding does not decode names nothing, as the contract's routes answer it.
  if (error instanceof URIError && e.status === 400) return new AppError("not_found", "The path could not be decoded.");

  // body-parser (express.json)
  switch (e.type) {
    case "entity.too.large":
      return new AppError("payload_too_large", `The request body exceeds ${e.limit ?? 65536} bytes.`);
    case "entity.parse.failed":
      return validationFailed([{ location: "body", path: "", message: `must be a JSON object (${e.message ?? "unparsable"})` }]);
    case "encoding.unsupported":
    case "charset.unsupported":
      return validationFailed([{ location: "header", path: "Content-Type", message: e.message ?? "unsupported encoding" }]);
  }

  // Other body-parser refusals (http-errors with a 4xx status and no validator's list): a body that
  // cannot be decoded, such as gzip that is not gzip, or whose length differs from Content-Length.
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500 && !Array.isArray(e.errors) && (e as { expose?: boolean }).expose) {
    return validationFailed([{ location: "body", path: "", message: `could not be read (${e.message ?? "unreadable"})` }]);
  }

  // express-openapi-validator
  if (Array.isArray(e.errors) && typeof e.status === "number") {
    const issues = e.errors.map(issueFrom);
    switch (e.status) {
      case 400: {
        // A path whose percent-encoding does not decode names nothing.
        if (e.errors.some((item) => item.message?.startsWith("malformed uri")))
          return new AppError("not_found", "The path could not be decoded.");
        // A malformed id names nothing: answer as for an unknown one.
        const pathIssue = issues.find((issue) => issue.location === "path");
        if (pathIssue) return new AppError("not_found", `No such ${RESOURCE_OF_PATH_ID[pathIssue.path] ?? "resource"}.`);
        return validationFailed(issues);
      }
      case 404:
        return new AppError("not_found", "No such route.");
      case 405:
        return new AppError("method_not_allowed", "This path does not support this method.", {
          headers: e.headers?.Allow ? { Allow: e.headers.Allow } : {},
        });
      case 413:
        return new AppError("payload_too_large", "The request body exceeds 65536 bytes.");
      case 415:
        return validationFailed([{ location: "header", path: "Content-Type", message: "must be application/json" }]);
    }
  }
  return new AppError("internal_error", INTERNAL_DETAIL, { cause: error });
}

export function sendError(res: Response, error: AppError): void {
  const { status, body } = errorAnswer(res, error, requestIdOf(res));
  res.locals.errorCode = error.code;
  res.status(status).json(body);
}

/**
 * An AppError's status and ApiError body, with its headers set on `res`: Express's response (sendError)
 * or the plain one of the LiveKit webhook's path (livekit-webhook.ts).
 */
export function errorAnswer(res: ServerResponse, error: AppError, requestId: string): { status: number; body: ApiError } {
  const status = STATUS_OF[error.code];
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  // A refused caller, or a request answered before its body arrived, gets no more of this connection:
  // Node would otherwise read and discard the rest of the body to keep the connection alive, which a
  // client trickling it could stretch for as long as the request timeout allows.
  if (status === 401 || status === 403 || !res.req.complete) res.setHeader("Connection", "close");
  if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
  return { status, body: { code: error.code, detail: error.detail, request_id: requestId } };
}

export function errorHandler(log: ErrorLogger) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error);
    const appError = toAppError(error);
    if (STATUS_OF[appError.code] >= 500) log(error, requestIdOf(res));
    try {
      sendError(res, appError);
    } catch (failure) {
      // Sending failed (in tests, the contract's response validator can throw from res.json): answer
      // a plain 500 ApiError here rather than let Express's default handler answer with an HTML page.
      log(failure, requestIdOf(res));
      if (res.headersSent) return void res.destroy();
      const body: ApiError = { code: "internal_error", detail: INTERNAL_DETAIL, request_id: requestIdOf(res) };
      res.locals.errorCode = body.code;
      res.statusCode = 500;
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.end(JSON.stringify(body));
    }
  };
}

/** The answer for a path and method that are no operation of the contract. */
export function unknownRoute(req: Request): AppError {
  return new AppError("not_found", `No route ${req.method} ${req.originalUrl.split("?")[0]}.`);
}

export function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(unknownRoute(req));
}
