/**
 * What a session's conversation needs from the outside: a store that keeps its state and items beside
 * the session (Redis or memory) and changes them with their events and timer in one step, and a way to
 * tell the session's digital human that something is queued (a LiveKit data message). Adapters live in
 * store/ and livekit/.
 */
import type { OutboundEvent } from "../customer-webhooks/ports.js";
import type { ConversationState } from "./conversation.js";

declare const conversationVersion: unique symbol;
/** What the store compares the state with when it is written: opaque to the domain. */
export type ConversationVersion = { readonly [conversationVersion]: true };

export interface ConversationRead {
  /** Undefined for a session nobody drove yet. */
  state: ConversationState | undefined;
  version: ConversationVersion;
  /** The fields asked for (items, Idempotency-Keys, marks), in that order; null when absent. */
  fields: (string | null)[];
  /** Whether an enabled webhook endpoint of the account takes a per-turn event type. */
  takesTurnEvents: boolean;
}

export interface ConversationWrite {
  accountId: string;
  sessionId: string;
  version: ConversationVersion;
  state: ConversationState;
  /** Fields to set beside the state (items' JSON, Idempotency-Keys, marks). */
  fields: Readonly<Record<string, string>>;
  /** Queued for the account's webhook endpoints that take them, in the same step. */
  events: readonly OutboundEvent[];
  /** When the conversation's keys expire: its session's, as transcripts' do. */
  expiresAtMs: number;
  /** When the session's `conversation` timer fires next; null: it is not needed. */
  timerAtMs: number | null;
  /**
   * Written only while the session is open (not terminal, as the store holds it in the same step): every
   * change but the timer's, which settles what a session's end left.
   */
  whileOpen?: boolean;
}

export interface ConversationStore {
  /** The state, its version and the fields asked for, in one read. */
  readConversation(accountId: string, sessionId: string, fields: readonly string[]): Promise<ConversationRead>;
  /**
   * Writes the change if the state is still at `version`, in one step with its fields, its events and its
   * timer: true when written, false when another writer got there first (nothing changed then: read
   * again), "ended" when `whileOpen` and the session is terminal (nothing changed).
   */
  writeConversation(write: ConversationWrite): Promise<boolean | "ended">;
  /** Fields alone (an utterance's record), without the state. */
  readConversationFields(sessionId: string, fields: readonly string[]): Promise<(string | null)[]>;
}

/** Tells the session's digital human that its queue changed, so it pulls now rather than at its next poll. */
export interface ConversationNudger {
  /** Best effort: a lost nudge only delays the item until the job's next poll. */
  nudge(roomName: string, identity: string, seq: number): Promise<void>;
}
