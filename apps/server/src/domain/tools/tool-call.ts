/**
 * One tool call of a session, as recorded (contract guide, "Tools"), pure. A call is kept beside its
 * session's conversation (a field `t:<id>` of it, its id in the state's `toolCalls`), so that recording
 * it, its event and the session being open are one compare-and-set. A webhook call is recorded `running`
 * with a lease before the customer's endpoint is called: a second request with its id finds it and never
 * calls again, and one whose runner died is `failed` once its lease is over.
 */
import type { ToolCall, ToolCallRun, ToolCallStatus } from "@dhs/contract";
import { AppError } from "../app-error.js";
import type { ConversationState } from "../conversation/conversation.js";
import type { ConversationEvent } from "../conversation/conversation-machine.js";
import { MAX_FOREIGN_DEPTH, readForeignJson } from "../foreign-json.js";
import { fingerprint } from "../sessions/idempotency.js";

export interface StoredToolCall {
  id: string;
  name: string;
  type: ToolCall["type"];
  arguments: Record<string, unknown>;
  /** Of its name and arguments: the same id with others is another call, refused. */
  fingerprint: string;
  status: ToolCallStatus;
  result: unknown;
  error: string | null;
  startedAtMs: number;
  durationMs: number | null;
  /** While running: when its runner is taken for dead (ms). */
  leaseUntilMs: number | null;
}

/** What a call came to. */
export type ToolOutcome =
  | { status: "succeeded"; result: unknown; durationMs: number }
  | { status: "failed" | "timed_out"; error: string; durationMs: number };

/** The most calls a session may make. */
export const MAX_TOOL_CALLS = 100;
/** The most a result may take as JSON (bytes), the endpoint's whole answer included. */
export const MAX_RESULT_BYTES = 16 * 1024;
/** How long past its timeout a running call's runner is still waited for (the recording after the answer). */
export const LEASE_MARGIN_MS = 5_000;

export const toolCallField = (id: string) => `t:${id}`;

/** A conversation's calls in the order they started, from its state (JSON) and its fields. */
export function toolCallsOf(stateJson: string | undefined, field: (name: string) => string | undefined): StoredToolCall[] {
  const ids = stateJson ? ((JSON.parse(stateJson) as { toolCalls?: string[] }).toolCalls ?? []) : [];
  return ids.flatMap((id) => {
    const json = field(toolCallField(id));
    return json ? [JSON.parse(json) as StoredToolCall] : [];
  });
}

export const fingerprintOf = (name: string, args: Record<string, unknown>): string => fingerprint({ name, arguments: args });

/** The error a call is given when its runner died before it recorded the endpoint's answer. */
export const RUNNER_LOST =
  "The service stopped before it recorded the answer of the tool's endpoint; the endpoint may have acted. Do not call it again for this.";

/** A call as it stands at nowMs: one running past its lease is failed (its runner died). */
export function settledAt(call: StoredToolCall, nowMs: number): StoredToolCall {
  if (call.status !== "running" || call.leaseUntilMs === null || nowMs < call.leaseUntilMs) return call;
  return settle(call, { status: "failed", error: RUNNER_LOST, durationMs: call.leaseUntilMs - call.startedAtMs });
}

/** The session.tool_called event of a call that ended. */
export function calledEvent(sessionId: string, call: StoredToolCall): ConversationEvent {
  return { type: "session.tool_called", data: { session_id: sessionId, tool_call: toolCallView(call) } };
}

/**
 * The conversation's timer: every running call whose lease is over (its runner died before it recorded
 * the endpoint's answer, and no repeat came to find it) is settled failed, with its event. `stored` reads a
 * call's field as the timer read it (null when it was not read: that one waits for the next timer).
 */
export function settleLostCalls(
  sessionId: string,
  state: ConversationState,
  stored: (id: string) => string | null,
  nowMs: number,
): { state: ConversationState; marks: Record<string, string>; events: ConversationEvent[]; settled: StoredToolCall[] } {
  const marks: Record<string, string> = {};
  const events: ConversationEvent[] = [];
  const settled: StoredToolCall[] = [];
  const toolLeases = (state.toolLeases ?? []).filter((lease) => {
    if (lease.untilMs > nowMs) return true;
    const json = stored(lease.id);
    if (json === null) return true;
    const call = JSON.parse(json) as StoredToolCall;
    if (call.status !== "running") return false;
    const lost = settledAt(call, nowMs);
    marks[toolCallField(call.id)] = JSON.stringify(lost);
    events.push(calledEvent(sessionId, lost));
    settled.push(lost);
    return false;
  });
  return { state: { ...state, toolLeases }, marks, events, settled };
}

/** The leases of running calls the timer needs read: those over by nowMs. */
export const lapsedLeases = (state: ConversationState | undefined, nowMs: number): string[] =>
  (state?.toolLeases ?? []).filter((lease) => lease.untilMs <= nowMs).map((lease) => lease.id);

export function settle(call: StoredToolCall, outcome: ToolOutcome): StoredToolCall {
  return {
    ...call,
    status: outcome.status,
    result: outcome.status === "succeeded" ? outcome.result : null,
    error: outcome.status === "succeeded" ? null : outcome.error,
    durationMs: Math.max(0, Math.round(outcome.durationMs)),
    leaseUntilMs: null,
  };
}

export function toolCallView(call: StoredToolCall): ToolCall {
  return {
    id: call.id,
    name: call.name,
    type: call.type,
    arguments: call.arguments,
    status: call.status,
    result: call.status === "succeeded" ? (call.result ?? null) : null,
    error: call.error,
    started_at: new Date(call.startedAtMs).toISOString(),
    duration_ms: call.durationMs,
  };
}

/**
 * What an endpoint's answer means for the LLM: `200` with `{"result": ...}` or `{"error": "..."}`, at
 * most MAX_RESULT_BYTES and MAX_FOREIGN_DEPTH levels deep, its strings kept as the history can hold them
 * (foreign-json.ts); anything else fails the call with its reason, the endpoint's, never the service's.
 */
export function outcomeOfAnswer(status: number, body: string | null, durationMs: number): ToolOutcome {
  const failed = (error: string): ToolOutcome => ({ status: "failed", error, durationMs });
  if (body === null) return failed(`The tool's endpoint answered more than ${MAX_RESULT_BYTES} bytes.`);
  if (status !== 200) return failed(`The tool's endpoint answered HTTP ${status}, not 200.`);
  const read = readForeignJson(body);
  if (!read.ok) {
    return failed(
      read.problem === "not_json"
        ? "The tool's endpoint answered something that is not JSON."
        : `The tool's endpoint answered JSON nested more than ${MAX_FOREIGN_DEPTH} levels deep.`,
    );
  }
  const parsed = read.value;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return failed('The tool\'s endpoint answered JSON that is not an object with "result" or "error".');
  }
  const answer = parsed as Record<string, unknown>;
  if (typeof answer.error === "string" && answer.error.length > 0) {
    return { status: "failed", error: answer.error.slice(0, 2000).toWellFormed(), durationMs };
  }
  if ("result" in answer) return { status: "succeeded", result: answer.result, durationMs };
  return failed('The tool\'s endpoint answered JSON without "result" or "error".');
}

/** Why a call could not reach its endpoint, as the LLM is told. */
export function networkFailure(error: string, timeoutMs: number, durationMs: number): ToolOutcome {
  if (error === "timeout") return { status: "timed_out", error: `The tool did not answer within ${timeoutMs} ms.`, durationMs };
  const reasons: Record<string, string> = {
    address_not_allowed: "the endpoint's address is not allowed",
    dns_failed: "the endpoint's host name could not be resolved",
    tls_failed: "the endpoint's TLS failed",
    connection_failed: "the endpoint could not be reached",
  };
  return { status: "failed", error: `The tool could not be called: ${reasons[error] ?? error}.`, durationMs };
}

/** The job's outcome of a client or end_session call, as recorded. */
export function outcomeOf(outcome: NonNullable<ToolCallRun["outcome"]>): ToolOutcome {
  if (outcome.status === "succeeded") return { status: "succeeded", result: outcome.result ?? null, durationMs: outcome.duration_ms };
  return {
    status: outcome.status,
    error: outcome.error ?? `The tool ${outcome.status.replace("_", " ")}.`,
    durationMs: outcome.duration_ms,
  };
}

export function reused(id: string): AppError {
  return new AppError("tool_call_id_reused", `Tool call ${id} was already made with another name or other arguments.`);
}

export function invalid(path: string, message: string): AppError {
  return new AppError("validation_failed", [{ location: "body", path, message }]);
}
