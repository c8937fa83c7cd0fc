/**
 * Conversations in memory, for development and tests: the same rules as the Redis store (a version
 * compared on every write; fields, events and the timer written with it), in one map per session.
 */
import { type ConversationState, TURN_EVENT_TYPES } from "../../domain/conversation/conversation.js";
import type { ConversationRead, ConversationStore, ConversationVersion, ConversationWrite } from "../../domain/conversation/ports.js";
import { TERMINAL } from "../../domain/sessions/session.js";
import type { MemoryWebhookStore } from "./customer-webhook-store.js";
import type { MemorySessionState } from "./sessions/state.js";

interface StoredConversation {
  version: number;
  state: string | null;
  fields: Map<string, string>;
  expiresAtMs: number;
}

export class MemoryConversationStore implements ConversationStore {
  private readonly conversations = new Map<string, StoredConversation>();

  constructor(
    /** Where the events are queued and the endpoints' routes read, in the same step as the change. */
    private readonly webhooks: MemoryWebhookStore,
    /** The session timers, which the `conversation` timer is one of. */
    private readonly sessions: MemorySessionState,
    private readonly now: () => number = Date.now,
  ) {}

  async readConversation(accountId: string, sessionId: string, fields: readonly string[]): Promise<ConversationRead> {
    const stored = this.conversation(sessionId);
    return {
      state: stored?.state ? (JSON.parse(stored.state) as ConversationState) : undefined,
      version: (stored?.version ?? 0) as unknown as ConversationVersion,
      fields: fields.map((field) => stored?.fields.get(field) ?? null),
      takesTurnEvents: this.webhooks.takesAny(accountId, TURN_EVENT_TYPES),
    };
  }

  async writeConversation(write: ConversationWrite): Promise<boolean | "ended"> {
    const stored = this.conversation(write.sessionId) ?? { version: 0, state: null, fields: new Map(), expiresAtMs: write.expiresAtMs };
    if (stored.version !== (write.version as unknown as number)) return false;
    const session = this.sessions.stored(write.accountId, write.sessionId);
    if (write.whileOpen && session && TERMINAL.has(session.status)) return "ended";
    stored.version++;
    stored.state = JSON.stringify(write.state);
    for (const [field, value] of Object.entries(write.fields)) stored.fields.set(field, value);
    stored.expiresAtMs = write.expiresAtMs;
    this.conversations.set(write.sessionId, stored);
    this.webhooks.record(write.accountId, write.events);
    if (write.timerAtMs === null) this.sessions.dropTimer(write.sessionId, "conversation");
    else this.sessions.schedule(write.accountId, write.sessionId, [{ timer: "conversation", atMs: write.timerAtMs }]);
    return true;
  }

  async readConversationFields(sessionId: string, fields: readonly string[]): Promise<(string | null)[]> {
    const stored = this.conversation(sessionId);
    return fields.map((field) => stored?.fields.get(field) ?? null);
  }

  private conversation(sessionId: string): StoredConversation | undefined {
    const stored = this.conversations.get(sessionId);
    if (stored && stored.expiresAtMs <= this.now()) {
      this.conversations.delete(sessionId);
      return undefined;
    }
    return stored;
  }
}
