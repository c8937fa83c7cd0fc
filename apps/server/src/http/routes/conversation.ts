/**
 * The operations that drive a live session (say, getUtterance, interruptSession, addSessionContext) and
 * the digital human's side of them (pullConversation, reportConversation): translate HTTP to
 * ConversationService calls and back, nothing more.
 */
import type { ConversationService } from "../../domain/conversation/conversation-service.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../operations.js";

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

/** The digital human's: what the session queued for it, and its reports of what became of each item. */
export function conversationJobOperations(
  conversation: ConversationService,
): Pick<DigitalHumanOperationHandlers, "pullConversation" | "reportConversation"> {
  return {
    // POST /v1/sessions/{session_id}/conversation/pull
    pullConversation: async ({ body }, caller) => {
      caller.speaksFor(body.participant_identity);
      return { body: await conversation.job.pull(caller.sessionId, body) };
    },

    // POST /v1/sessions/{session_id}/conversation/reports
    reportConversation: async ({ body }, caller) => {
      caller.speaksFor(body.participant_identity);
      return { body: await conversation.job.report(caller.sessionId, body) };
    },
  };
}
