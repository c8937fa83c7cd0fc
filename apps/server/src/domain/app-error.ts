/**
 * The one error type of the service. Whatever goes wrong is, or becomes, an AppError with a stable
 * `code` from the contract's error table; the HTTP layer maps it to an ApiError body in one place.
 */

export type ErrorCode =
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "idempotency_key_reused"
  | "idempotency_request_in_progress"
  | "session_not_connectable"
  | "payload_too_large"
  | "validation_failed"
  | "digital_human_not_found"
  | "rate_limited"
  | "internal_error"
  | "service_unavailable";

export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  session_not_connectable: 409,
  payload_too_large: 413,
  validation_failed: 422,
  digital_human_not_found: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export interface AppErrorOptions {
  /** Seconds a client should wait before retrying (sent as Retry-After). */
  retryAfterSeconds?: number;
  /** Extra response headers, e.g. Allow for 405. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override readonly name = "AppError";
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: unknown,
    options: AppErrorOptions = {},
  ) {
    super(typeof detail === "string" ? `${code}: ${detail}` : code, { cause: options.cause });
    this.status = STATUS_OF[code];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }
}
