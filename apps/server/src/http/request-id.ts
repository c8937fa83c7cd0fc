/**
 * Gives every request its own id, sent back as X-Request-ID on every response (success or error) and
 * used as `request_id` in ApiError bodies and logs. The id is always ours: a caller's X-Request-ID is not
 * trusted, so two requests can never share one.
 */
import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

// randomUUID draws from a pooled entropy buffer: much cheaper per request than randomBytes(16).
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll("-", "")}`;
}

export function requestId(_req: Request, res: Response, next: NextFunction): void {
  const id = newRequestId();
  res.locals.requestId = id;
  res.setHeader("X-Request-ID", id);
  next();
}

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? newRequestId();
}
