/**
 * What tool calls need from the outside: a sender that posts one signed call to a customer's endpoint
 * and waits for its answer (customer-webhooks/tool-call-sender.ts), and the history of ended sessions'
 * calls (with the PostgreSQL history).
 */
import type { WebhookDelivery } from "@dhs/contract";
import type { StoredToolCall } from "./tool-call.js";

export type ToolCallSendResult =
  /** `body`: the answer's text; null when it was larger than the most a result may take. */
  | { kind: "answered"; status: number; body: string | null; durationMs: number }
  | { kind: "failed"; error: NonNullable<WebhookDelivery["error"]>; durationMs: number };

export interface ToolCallSender {
  /** One attempt, never repeated: redirects are not followed, and `timeoutMs` bounds the whole of it. */
  call(request: { url: string; eventId: string; body: string; secrets: string[]; timeoutMs: number }): Promise<ToolCallSendResult>;
}

/** Ended sessions' tool calls as the history database keeps them. */
export interface ToolCallHistory {
  /** In the order they started; undefined when the history does not hold the session. */
  listToolCalls(sessionId: string): Promise<StoredToolCall[] | undefined>;
}
