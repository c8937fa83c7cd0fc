/**
 * The one error type of the service. Whatever goes wrong is, or becomes, an AppError with a stable
 * `code` from the contract's `ErrorCode` list; the HTTP layer maps it to an ApiError body and its status
 * in one place (http/error-status.ts, http/error-handler.ts).
 */
import type { ErrorCode } from "@dhs/contract";

export type { ErrorCode };

export interface AppErrorOptions {
  /** Seconds a client should wait before retrying (sent as Retry-After). */
  retryAfterSeconds?: number;
  /** Extra response headers, e.g. Allow for 405. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override readonly name = "AppError";
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: unknown,
    options: AppErrorOptions = {},
  ) {
    super(typeof detail === "string" ? `${code}: ${detail}` : code, { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }
}
