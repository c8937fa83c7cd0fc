/**
 * listSessionToolCalls: a session's calls in the order they started, from the conversation Redis (or
 * memory) keeps beside the session, or, once it no longer holds it, from the PostgreSQL history; a call
 * running past its lease is shown failed (its runner died), as the conversation's timer will record it.
 */
import type { ToolCallList } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import type { ConversationChanges } from "../conversation/conversation-changes.js";
import type { ConversationStore } from "../conversation/ports.js";
import type { SessionRecords } from "../sessions/ports.js";
import { findOwnSession } from "../sessions/session-reader.js";
import type { ToolCallHistory } from "./ports.js";
import { type StoredToolCall, settledAt, toolCallField, toolCallView } from "./tool-call.js";

export async function listToolCalls(
  deps: {
    sessions: Pick<SessionRecords, "getSession">;
    store: ConversationStore;
    changes: Pick<ConversationChanges, "now">;
    history?: ToolCallHistory | undefined;
  },
  principal: Principal,
  sessionId: string,
): Promise<ToolCallList> {
  const session = await findOwnSession(deps.sessions, principal, sessionId);
  const { state } = await deps.store.readConversation(session.account_id, session.id, []);
  let calls: StoredToolCall[];
  if (state === undefined) {
    calls = (await deps.history?.listToolCalls(session.id)) ?? [];
  } else {
    const ids = state.toolCalls ?? [];
    const jsons = ids.length === 0 ? [] : await deps.store.readConversationFields(session.id, ids.map(toolCallField));
    calls = jsons.flatMap((json) => (json ? [JSON.parse(json) as StoredToolCall] : []));
  }
  const nowMs = deps.changes.now().getTime();
  return { data: calls.map((call) => toolCallView(settledAt(call, nowMs))) };
}
