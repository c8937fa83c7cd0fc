/**
 * The HTTP status of every error code of the contract (`ErrorCode`, and the table under its *Errors*
 * heading). Typed by the contract's list, so a code the contract adds without a status here, or a status
 * for a code it does not list, does not compile; error-status.test.ts checks the contract's table too.
 */
import type { ErrorCode } from "@dhs/contract";

export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  malformed_request: 400,
  unauthorized: 401,
  forbidden: 403,
  test_key_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  session_not_connectable: 409,
  digital_human_read_only: 409,
  transcript_closed: 409,
  transcript_limit_reached: 409,
  session_ended: 409,
  payload_too_large: 413,
  expectation_failed: 417,
  validation_failed: 422,
  digital_human_not_found: 422,
  digital_human_limit_reached: 422,
  webhook_url_not_allowed: 422,
  webhook_endpoint_limit_reached: 422,
  document_limit_reached: 422,
  rate_limited: 429,
  concurrency_limit_exceeded: 429,
  conversation_notes_limit_reached: 409,
  tool_call_id_reused: 409,
  tool_calls_limit_reached: 409,
  session_not_ended: 409,
  analysis_not_requested: 409,
  analysis_settled: 409,
  recording_not_requested: 409,
  recording_interrupted: 409,
  recording_settled: 409,
  conversation_queue_full: 429,
  conversation_rate_limited: 429,
  concurrent_changes: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
};
