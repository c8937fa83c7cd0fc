/**
 * The rules of a session's conversation, pure: each use (a say, a note, an interruption, the digital
 * human's pull and reports, the timer) takes the state and answers the state after it, the items it
 * changed and the events it causes. The service stores all of it in one compare-and-set, so a rule holds
 * however many replicas and jobs race: an utterance is started once, by one job, and ends once.
 */
import type { ParticipantTurnData, ToolCalledData, UtteranceEventData } from "@dhs/contract";
import {
  type ConversationLimits,
  type ConversationState,
  iso,
  LONGEST_UTTERANCE_MS,
  type StoredItem,
  type StoredSay,
} from "./conversation.js";

export type ConversationEvent =
  | { type: "session.participant_turn"; data: ParticipantTurnData }
  | { type: "session.utterance_started" | "session.utterance_ended"; data: UtteranceEventData }
  | { type: "session.tool_called"; data: ToolCalledData };

/** A change: the state after it, the items it changed (stored whole) and the events it causes. */
export interface Change {
  state: ConversationState;
  items: StoredItem[];
  events: ConversationEvent[];
}

export type QueueOutcome =
  | ({ kind: "queued" } & Change)
  | { kind: "queue_full"; limit: number }
  | { kind: "notes_limit"; limit: number }
  | { kind: "rate_limited"; retryAfterS: number; limit: number };

export function sayEvent(
  sessionId: string,
  type: "session.utterance_started" | "session.utterance_ended",
  say: StoredSay,
): ConversationEvent {
  const status = say.status === "queued" ? "expired" : say.status;
  return {
    type,
    data: {
      session_id: sessionId,
      utterance_id: say.id,
      source: "say",
      text: say.text,
      status,
      started_at: iso(say.startedAtMs),
      ended_at: iso(say.endedAtMs),
    },
  };
}

/** Ends a say (spoken, interrupted, expired) with its event. */
export function settleSay(sessionId: string, say: StoredSay, status: "spoken" | "interrupted" | "expired", atMs: number) {
  const settled: StoredSay = { ...say, status, endedAtMs: atMs };
  return { settled, event: sayEvent(sessionId, "session.utterance_ended", settled) };
}

/**
 * Queues an item (a say or a note) unless the queue is full or the minute's characters are spent. A say
 * with `interrupt` drops the says queued before it (the job cuts what it says when it takes it).
 */
export function queueItem(
  sessionId: string,
  state: ConversationState,
  item: { kind: "say"; id: string; text: string; interrupt: boolean } | { kind: "context"; id: string; text: string; respond: boolean },
  nowMs: number,
  limits: ConversationLimits,
): QueueOutcome {
  const queued = state.live.filter((live) => live.status === "queued");
  // Notes count for the session's whole life (each is handed again to a job dispatched again), so
  // their bound is not one to wait out: a refusal of its own, without Retry-After.
  const notes = state.delivered.length + queued.filter((live) => live.kind === "context").length;
  if (item.kind === "context" && notes >= limits.maxNotes) return { kind: "notes_limit", limit: limits.maxNotes };
  if (queued.length >= limits.maxQueued) return { kind: "queue_full", limit: limits.maxQueued };
  const fresh = nowMs - state.windowStartMs >= 60_000;
  const windowStartMs = fresh ? nowMs : state.windowStartMs;
  const used = (fresh ? 0 : state.windowChars) + [...item.text].length;
  if (used > limits.charactersPerMinute) {
    return {
      kind: "rate_limited",
      retryAfterS: Math.max(1, Math.ceil((windowStartMs + 60_000 - nowMs) / 1000)),
      limit: limits.charactersPerMinute,
    };
  }
  const seq = state.seq + 1;
  const stored: StoredItem =
    item.kind === "say"
      ? {
          kind: "say",
          id: item.id,
          seq,
          text: item.text,
          interrupt: item.interrupt,
          status: "queued",
          createdAtMs: nowMs,
          expiresAtMs: nowMs + limits.sayTtlMs,
          deliveredAtMs: null,
          startedAtMs: null,
          endedAtMs: null,
          speaker: null,
        }
      : {
          kind: "context",
          id: item.id,
          seq,
          text: item.text,
          respond: item.respond,
          status: "queued",
          createdAtMs: nowMs,
          deliveredAtMs: null,
        };
  const items: StoredItem[] = [stored];
  const events: ConversationEvent[] = [];
  let live = state.live;
  if (stored.kind === "say" && stored.interrupt) {
    live = live.filter((other) => {
      if (other.kind !== "say" || other.status !== "queued") return true;
      const { settled, event } = settleSay(sessionId, other, "interrupted", nowMs);
      items.push(settled);
      events.push(event);
      return false;
    });
  }
  return {
    kind: "queued",
    state: { ...state, seq, live: [...live, stored], windowStartMs, windowChars: used },
    items,
    events,
  };
}

/**
 * interruptSession: what is being said and every queued say end interrupted; the interruption takes a
 * `seq` of its own, which tells the job to stop whatever it says (its own answer too).
 */
export function interrupt(sessionId: string, state: ConversationState, nowMs: number): Change & { stopped: string[] } {
  const items: StoredItem[] = [];
  const events: ConversationEvent[] = [];
  const live = state.live.filter((item) => {
    if (item.kind !== "say") return true;
    const { settled, event } = settleSay(sessionId, item, "interrupted", nowMs);
    items.push(settled);
    events.push(event);
    return false;
  });
  const seq = state.seq + 1;
  return { state: { ...state, seq, interruptSeq: seq, live }, items, events, stopped: items.map((item) => item.id) };
}

/**
 * The timer: queued says past their expiry expire, says said for longer than any can be end
 * interrupted (their job is gone); once the session ended, everything still queued or said ends.
 */
export function expire(sessionId: string, state: ConversationState, nowMs: number, sessionEnded: boolean): Change {
  const items: StoredItem[] = [];
  const events: ConversationEvent[] = [];
  const live = state.live.filter((item) => {
    if (item.kind === "context") {
      if (!sessionEnded) return true;
      items.push({ ...item, status: "expired" });
      return false;
    }
    const speaking = item.status === "speaking";
    const due = speaking ? (item.startedAtMs ?? item.createdAtMs) + LONGEST_UTTERANCE_MS : item.expiresAtMs;
    if (!sessionEnded && due > nowMs) return true;
    const { settled, event } = settleSay(sessionId, item, speaking ? "interrupted" : "expired", nowMs);
    items.push(settled);
    events.push(event);
    return false;
  });
  return { state: { ...state, live }, items, events };
}
