/**
 * The one place where errors become HTTP answers: an AppError keeps its code and status; anything else is
 * logged and answered as `500 internal_error` without a stack. Every body is the contract's ApiError and
 * its request_id equals the X-Request-ID header.
 */
import type { ApiError } from "@dhs/contract";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "../domain/app-error.js";
import { requestIdOf } from "./request-id.js";

export type ErrorLogger = (error: unknown, requestId: string) => void;

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError("internal_error", "An unexpected error occurred. Quote the request id to support.", { cause: error });
}

export function sendError(res: Response, error: AppError): void {
  const body: ApiError = { code: error.code, detail: error.detail, request_id: requestIdOf(res) };
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
  res.status(error.status).json(body);
}

export function errorHandler(log: ErrorLogger) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error);
    const appError = toAppError(error);
    if (appError.status >= 500) log(error, requestIdOf(res));
    sendError(res, appError);
  };
}

export function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new AppError("not_found", `No route ${req.method} ${req.path}.`));
}
