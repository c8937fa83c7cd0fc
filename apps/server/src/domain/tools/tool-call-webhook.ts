/**
 * A webhook tool's call posted to its endpoint (contract guide, "Tools"): the endpoint as it is now (one
 * deleted or disabled since is a failure, not a post), the body the contract's `receiveToolCall` shows,
 * signed with the endpoint's current secrets, and what the answer means for the LLM.
 */
import { createHash } from "node:crypto";
import type { ToolCallPayload, WebhookTool } from "@dhs/contract";
import { modeOfOwner } from "../accounts/api-keys.js";
import type { WebhookStore } from "../customer-webhooks/ports.js";
import type { SessionRecord } from "../sessions/session.js";
import type { ToolCallSender } from "./ports.js";
import { networkFailure, outcomeOfAnswer, type StoredToolCall, type ToolOutcome } from "./tool-call.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "./tool-definitions.js";

/** Stored tools have theirs filled (tool-definitions.ts); the default covers a persona kept before. */
export const timeoutOf = (tool: WebhookTool) => tool.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS;

/** The `webhook-id` of a tool call: the same for the same call, so an endpoint may de-duplicate on it too. */
export function toolCallEventId(sessionId: string, toolCallId: string): string {
  return `evt_${createHash("sha256").update(`${sessionId}/${toolCallId}`).digest("hex").slice(0, 32)}`;
}

export async function postToolCall(
  deps: { endpoints: Pick<WebhookStore, "getEndpoint">; sender: ToolCallSender },
  session: SessionRecord,
  tool: WebhookTool,
  call: StoredToolCall,
): Promise<ToolOutcome> {
  const endpoint = await deps.endpoints.getEndpoint(session.account_id, tool.endpoint_id);
  if (!endpoint) return { status: "failed", error: "The tool's webhook endpoint no longer exists.", durationMs: 0 };
  if (endpoint.status !== "enabled") return { status: "failed", error: "The tool's webhook endpoint is disabled.", durationMs: 0 };
  const payload: ToolCallPayload = {
    type: "session.tool_call",
    mode: modeOfOwner(session.account_id),
    timestamp: new Date(call.startedAtMs).toISOString(),
    data: {
      tool_call_id: call.id,
      session_id: session.id,
      digital_human_id: session.digital_human_id,
      participant_identity: session.participant_identity,
      name: call.name,
      arguments: call.arguments,
    },
  };
  const startedMs = Date.now();
  const secrets = endpoint.secrets.filter((s) => s.expiresAtMs === null || s.expiresAtMs > startedMs).map((s) => s.secret);
  const sent = await deps.sender.call({
    url: endpoint.url,
    eventId: toolCallEventId(session.id, call.id),
    body: JSON.stringify(payload),
    secrets,
    timeoutMs: timeoutOf(tool),
  });
  return sent.kind === "answered"
    ? outcomeOfAnswer(sent.status, sent.body, sent.durationMs)
    : networkFailure(sent.error, timeoutOf(tool), sent.durationMs);
}
