/**
 * Driving a session as a feature: what an API key queues for a live session (say, interrupt, context),
 * what the digital human pulls and reports of it, and the timer of an item falling due.
 */
import { ConversationService, type ConversationServiceDeps } from "../domain/conversation/conversation-service.js";
import { conversationJobOperations, conversationOperations } from "../http/routes/conversation.js";
import type { Feature } from "./feature.js";

export function conversationOf(deps: ConversationServiceDeps) {
  const conversation = new ConversationService(deps);
  return {
    conversation,
    feature: {
      name: "conversation",
      operations: conversationOperations(conversation),
      digitalHumanOperations: conversationJobOperations(conversation),
      timers: { conversation: (accountId: string, sessionId: string) => conversation.onTimer(accountId, sessionId) },
    } satisfies Feature,
  };
}
