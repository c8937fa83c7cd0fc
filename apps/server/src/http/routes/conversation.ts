/**
 * The operations that drive a live session (say, getUtterance, interruptSession, addSessionContext):
 * translate HTTP to ConversationService calls and back, nothing more.
 */
import type { ConversationService } from "../../domain/conversation/conversation-service.js";
import type { OperationHandlers } from "../operations.js";

export function conversationOperations(
  conversation: ConversationService,
): Pick<OperationHandlers, "say" | "getUtterance" | "interruptSession" | "addSessionContext"> {
  const replayed = (yes: boolean) => (yes ? { "Idempotent-Replayed": "true" as const } : {});
  return {
    // POST /v1/sessions/{session_id}/say
    say: async ({ path, header, body }, principal) => {
      const { utterance, replayed: again } = await conversation.say(principal, path.session_id, header["Idempotency-Key"], body);
      return { status: 202, body: utterance, headers: replayed(again) };
    },

    // GET /v1/sessions/{session_id}/say/{utterance_id}
    getUtterance: async ({ path }, principal) => ({ body: await conversation.getUtterance(principal, path.session_id, path.utterance_id) }),

    // POST /v1/sessions/{session_id}/interrupt
    interruptSession: async ({ path }, principal) => ({ body: await conversation.interrupt(principal, path.session_id) }),

    // POST /v1/sessions/{session_id}/context
    addSessionContext: async ({ path, header, body }, principal) => {
      const { note, replayed: again } = await conversation.addContext(principal, path.session_id, header["Idempotency-Key"], body);
      return { status: 202, body: note, headers: replayed(again) };
    },
  };
}
