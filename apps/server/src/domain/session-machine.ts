/**
 * The session state machine (brief, "States"): a transition table and one pure function. Every change
 * of a session's status goes through `transition`; nothing else decides what an event does.
 *
 * Terminal states (completed, cancelled, failed) are absorbing: no event moves a session out of them,
 * ended_at is set once, and duplicate or late events change nothing. Events that do not apply in a
 * state are ignored, so events may arrive twice or out of order.
 */
import type { EndReason, SessionStatus } from "@dhs/contract";
import { type SessionRecord, TERMINAL } from "./session.js";

export type SessionEvent =
  /** The session's own participant joined its room (LiveKit participant_joined with its identity). */
  | { type: "participant_joined" }
  /** A participant of kind AGENT joined: the digital human is there. */
  | { type: "digital_human_joined" }
  /** Another participant joined (neither the session's participant nor an agent). */
  | { type: "other_participant_joined" }
  /** LiveKit closed the room (everyone left, empty timeout, or deleted outside this API). */
  | { type: "room_finished" }
  /** endSession was called. */
  | { type: "end_requested" }
  /** Timers, fired by the sweeper. */
  | { type: "join_timeout" }
  | { type: "digital_human_timeout" }
  | { type: "max_duration" };

/** The timers of a session's life, fired through the machine. */
export type LifecycleTimer = "join_timeout" | "digital_human_timeout" | "max_duration";
/** `purge` deletes a terminal session once its retention ends; it is no event of the machine. */
export type TimerKind = LifecycleTimer | "purge";

export type Effect =
  /** Delete the LiveKit room, disconnecting whoever is in it. */
  | { type: "delete_room" }
  /** Fire this timer at this time (ms since the epoch). */
  | { type: "schedule"; timer: TimerKind; at: number }
  /** No timer of this session is needed any more. */
  | { type: "cancel_timers" };

export interface Durations {
  joinTimeoutS: number;
  digitalHumanJoinTimeoutS: number;
  maxDurationS: number;
  /** How long a terminal session is kept (readable and listed) before it is deleted. */
  retentionS: number;
}

export interface TransitionResult {
  session: SessionRecord;
  /** False when the event changed nothing (the store need not be written). */
  changed: boolean;
  effects: Effect[];
}

type Outcome = { to: SessionStatus; reason?: EndReason } | "mark_digital_human" | "ignore" | "delete_room";

/**
 * What each event does in each state. Terminal states answer every event alike: a participant who joins
 * a terminal session's room (an old token) gets the room deleted again; everything else is ignored.
 */
export const TRANSITIONS: Readonly<Record<SessionStatus, Readonly<Record<SessionEvent["type"], Outcome>>>> = {
  created: {
    participant_joined: { to: "active" },
    digital_human_joined: "mark_digital_human",
    other_participant_joined: "ignore",
    room_finished: { to: "cancelled", reason: "room_finished" },
    end_requested: { to: "cancelled", reason: "user_ended" },
    join_timeout: { to: "cancelled", reason: "join_timeout" },
    digital_human_timeout: "ignore",
    max_duration: "ignore",
  },
  active: {
    participant_joined: "ignore",
    digital_human_joined: "mark_digital_human",
    other_participant_joined: "ignore",
    room_finished: { to: "completed", reason: "room_finished" },
    end_requested: { to: "completed", reason: "user_ended" },
    join_timeout: "ignore",
    digital_human_timeout: { to: "failed", reason: "digital_human_timeout" },
    max_duration: { to: "completed", reason: "max_duration" },
  },
  completed: terminal(),
  cancelled: terminal(),
  failed: terminal(),
};

function terminal(): Record<SessionEvent["type"], Outcome> {
  return {
    participant_joined: "delete_room",
    digital_human_joined: "delete_room",
    other_participant_joined: "delete_room",
    room_finished: "ignore",
    end_requested: "ignore",
    join_timeout: "ignore",
    digital_human_timeout: "ignore",
    max_duration: "ignore",
  };
}


/** The timers a newly created session needs. */
export function timersOnCreate(session: SessionRecord, durations: Durations): Effect[] {
  return [{ type: "schedule", timer: "join_timeout", at: Date.parse(session.created_at) + durations.joinTimeoutS * 1000 }];
}

export function transition(session: SessionRecord, event: SessionEvent, now: Date, durations: Durations): TransitionResult {
  const outcome = TRANSITIONS[session.status][event.type];
  const unchanged = (effects: Effect[] = []): TransitionResult => ({ session, changed: false, effects });

  if (outcome === "ignore") return unchanged();
  if (outcome === "delete_room") return unchanged([{ type: "delete_room" }]);
  if (outcome === "mark_digital_human") {
    if (session.digital_human_joined_at !== null) return unchanged();
    return { session: { ...session, digital_human_joined_at: now.toISOString() }, changed: true, effects: [] };
  }

  const at = now.toISOString();
  if (TERMINAL.has(outcome.to)) {
    const ended: SessionRecord = { ...session, status: outcome.to, end_reason: outcome.reason ?? null, ended_at: at };
    // The room goes too, except when LiveKit already closed it (room_finished) or endSession deleted it
    // before the change was stored (so that LiveKit being down leaves the session unchanged).
    const roomGone = event.type === "room_finished" || event.type === "end_requested";
    const purge: Effect = { type: "schedule", timer: "purge", at: now.getTime() + durations.retentionS * 1000 };
    const effects: Effect[] = roomGone ? [{ type: "cancel_timers" }, purge] : [{ type: "cancel_timers" }, purge, { type: "delete_room" }];
    return { session: ended, changed: true, effects };
  }

  // created -> active
  const started = now.getTime();
  const effects: Effect[] = [{ type: "schedule", timer: "max_duration", at: started + durations.maxDurationS * 1000 }];
  if (session.digital_human_joined_at === null) {
    effects.push({ type: "schedule", timer: "digital_human_timeout", at: started + durations.digitalHumanJoinTimeoutS * 1000 });
  }
  return { session: { ...session, status: "active", started_at: at }, changed: true, effects };
}
