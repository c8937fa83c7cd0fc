/**
 * For callers who prefer exceptions to `{ data, error }`: `unwrap()` returns the data of a success and
 * throws a `DhsApiError` carrying the ApiError of a failure.
 */
import type { ApiError } from "@dhs/contract";

export class DhsApiError extends Error {
  override readonly name = "DhsApiError";
  readonly status: number;
  readonly code: string;
  readonly detail: unknown;
  readonly requestId: string | null;

  constructor(status: number, body: Partial<ApiError> | undefined, requestId: string | null) {
    const code = typeof body?.code === "string" ? body.code : `http_${status}`;
    super(`${status} ${code}${requestId ? ` (request ${requestId})` : ""}`);
    this.status = status;
    this.code = code;
    this.detail = body?.detail;
    this.requestId = body?.request_id ?? requestId;
  }
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export function unwrap<T>(result: Result<T>): T {
  const { data, error, response } = result;
  if (response.ok && error === undefined) return data as T;
  const body = typeof error === "object" && error !== null ? (error as Partial<ApiError>) : undefined;
  throw new DhsApiError(response.status, body, response.headers.get("X-Request-ID"));
}
