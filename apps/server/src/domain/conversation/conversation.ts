/**
 * A session's conversation as its backend drives it (contract guide, "Driving a session"): the
 * utterances of `say` and the notes of `addSessionContext` queued for its digital human, and what each
 * became. The state is small and rewritten whole by every change (a compare-and-set in the store); each
 * item's own record sits beside it, read by `getUtterance` and by the replay of an Idempotency-Key.
 */
import { randomBytes } from "node:crypto";
import type { ContextNote, Utterance, UtteranceStatus } from "@dhs/contract";

export interface StoredSay {
  kind: "say";
  id: string;
  seq: number;
  text: string;
  interrupt: boolean;
  status: UtteranceStatus;
  createdAtMs: number;
  expiresAtMs: number;
  deliveredAtMs: number | null;
  startedAtMs: number | null;
  endedAtMs: number | null;
  /** The job (its identity in the room) that was allowed to say it. */
  speaker: string | null;
}

export interface StoredContext {
  kind: "context";
  id: string;
  seq: number;
  text: string;
  respond: boolean;
  status: "queued" | "delivered" | "expired";
  createdAtMs: number;
  deliveredAtMs: number | null;
}

export type StoredItem = StoredSay | StoredContext;

/** The state of one session's conversation, as the store keeps it beside the items. */
export interface ConversationState {
  /** The last `seq` given (to an item or to an interruption). */
  seq: number;
  /** The `seq` of the latest interruption (0: none). */
  interruptSeq: number;
  /** Says still queued or being said, and notes no job took yet, in `seq` order. */
  live: StoredItem[];
  /** Every note delivered, so that a job dispatched again learns them too (ids and seqs; texts are the items'). */
  delivered: { id: string; seq: number }[];
  /** The identity of the job that pulled last: where the nudges go. */
  agent: string | null;
  /** When it was last nudged (ms): one that still holds items it did not take is nudged again. */
  nudgedAtMs: number;
  /** The characters given in the current minute, and when it began (ms). */
  windowStartMs: number;
  windowChars: number;
  /** The ids of the session's tool calls, in the order they started (absent before the first; tools/tool-call.ts). */
  toolCalls?: string[];
  /** The webhook calls running, with when their runner is taken for dead: the timer settles them then. */
  toolLeases?: { id: string; untilMs: number }[];
}

export const EMPTY_CONVERSATION: ConversationState = {
  seq: 0,
  interruptSeq: 0,
  live: [],
  delivered: [],
  agent: null,
  nudgedAtMs: 0,
  windowStartMs: 0,
  windowChars: 0,
};

/** The deployment's bounds of a session's conversation. */
export interface ConversationLimits {
  /** Items (utterances and notes) queued at once. */
  maxQueued: number;
  /** Characters of `say` and `addSessionContext` a minute. */
  charactersPerMinute: number;
  /** How long an utterance may wait to be started (ms). */
  sayTtlMs: number;
  /** Notes a session may be given in all (each is delivered again to a job dispatched again). */
  maxNotes: number;
}

/**
 * How long an utterance may be said before the service takes its job for gone: 2 000 characters are
 * about two and a half minutes of speech.
 */
export const LONGEST_UTTERANCE_MS = 5 * 60_000;

/** The store's field of an item, of an Idempotency-Key, of a report's mark. */
export const fields = {
  item: (id: string) => `i:${id}`,
  key: (idempotencyKey: string) => `k:${idempotencyKey}`,
  report: (type: string, id: string) => `r:${type}:${id}`,
};

export const newUtteranceId = () => `utt_${randomBytes(12).toString("hex")}`;
export const newContextId = () => `ctx_${randomBytes(12).toString("hex")}`;

/**
 * How long a job may leave what is queued for it untaken before it is nudged again (a nudge is a LiveKit
 * data message, and one sent by a replica that died right after storing the item was never sent).
 */
export const RENUDGE_MS = 3_000;

/** Whether the known job has not taken everything queued for it yet. */
export function awaitsDelivery(state: ConversationState): boolean {
  return state.agent !== null && state.live.some((item) => item.status === "queued" && item.deliveredAtMs === null);
}

/**
 * When the conversation next needs the service's timer: a queued say expires, a say lasts too long, a
 * job that did not take what was queued is nudged again, a tool call's runner is taken for dead.
 */
export function nextDueMs(state: ConversationState): number | null {
  let due: number | null = awaitsDelivery(state) ? state.nudgedAtMs + RENUDGE_MS : null;
  for (const item of state.live) {
    if (item.kind !== "say") continue;
    const at = item.status === "speaking" ? (item.startedAtMs ?? item.createdAtMs) + LONGEST_UTTERANCE_MS : item.expiresAtMs;
    if (due === null || at < due) due = at;
  }
  for (const lease of state.toolLeases ?? []) if (due === null || lease.untilMs < due) due = lease.untilMs;
  return due;
}

/** A stored time (ms, or null) as the contract writes times. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The per-turn event types: an endpoint takes them by name or by `*`, and the job reports turns only then. */
export const TURN_EVENT_TYPES: readonly string[] = ["session.participant_turn", "session.utterance_started", "session.utterance_ended"];

/**
 * An utterance as the API shows it. One still queued on a session that ended is shown expired at once;
 * the timer that makes it so (and sends its event) may come up to its expiry later.
 */
export function utteranceView(sessionId: string, say: StoredSay, sessionEnded: boolean): Utterance {
  const status = sessionEnded && say.status === "queued" ? "expired" : say.status;
  return {
    id: say.id,
    session_id: sessionId,
    text: say.text,
    interrupt: say.interrupt,
    status,
    created_at: new Date(say.createdAtMs).toISOString(),
    expires_at: new Date(say.expiresAtMs).toISOString(),
    delivered_at: iso(say.deliveredAtMs),
    started_at: iso(say.startedAtMs),
    ended_at: iso(say.endedAtMs),
  };
}

/** A note as the API shows it: one no job took before its session ended is expired. */
export function contextView(sessionId: string, note: StoredContext, sessionEnded: boolean): ContextNote {
  return {
    id: note.id,
    session_id: sessionId,
    text: note.text,
    respond: note.respond,
    status: sessionEnded && note.status === "queued" ? "expired" : note.status,
    created_at: new Date(note.createdAtMs).toISOString(),
    delivered_at: iso(note.deliveredAtMs),
  };
}
