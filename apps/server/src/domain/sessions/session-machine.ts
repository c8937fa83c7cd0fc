/**
 * The session state machine (contract guide, "Session lifecycle"): a transition table and one pure
 * function. Every change of a session goes through `transition`; nothing else decides what an event does.
 * Some outcomes depend on the session's data, not only its status (a timer that must not fire once
 * something has happened): those are named guards in the table, and the model-based test
 * (test/model) checks them over generated sequences of events.
 *
 * Terminal states (completed, cancelled, failed) are absorbing: no event moves a session out of them,
 * ended_at is set once, and duplicate or late events change nothing. Events that do not apply in a
 * state are ignored, so events may arrive twice or out of order.
 */
import type { EndReason, SessionStatus } from "@dhs/contract";
import { type SessionRecord, TERMINAL } from "./session.js";

export type SessionEvent =
  /** The session's own participant joined its room; `sid` names that connection. */
  | { type: "participant_joined"; sid: string }
  /** A connection of the session's participant left the room (closed tab, lost network, page reload). */
  | { type: "participant_left"; sid: string }
  /** A participant of kind AGENT joined: the digital human is there. */
  | { type: "digital_human_joined" }
  /** The participant of kind AGENT left the room (a crashed or stopped worker, a lost connection). */
  | { type: "digital_human_left" }
  /** Another participant joined (neither the session's participant nor an agent). */
  | { type: "other_participant_joined" }
  /**
   * LiveKit closed the room: its own empty or departure timeout (once nobody but agents is in it), or
   * someone deleted it outside this API.
   */
  | { type: "room_finished" }
  /** endSession was called. */
  | { type: "end_requested" }
  /** The digital human ended the conversation with its end_session tool, after its goodbye. */
  | { type: "digital_human_ended" }
  /** Timers, fired by the sweeper. */
  | { type: "join_timeout" }
  | { type: "digital_human_timeout" }
  | { type: "max_duration" }
  | { type: "departure_timeout" }
  /** The digital human left an active session and did not come back in time. */
  | { type: "digital_human_lost" }
  /** Time to look whether LiveKit still has a live job for the digital human, while it is absent. */
  | { type: "dispatch_check" }
  /** The room of an ended session is still owed its deletion (an earlier try failed, or never ran). */
  | { type: "room_deletion" };

/** The timers of a session's life, fired through the machine. */
export type LifecycleTimer =
  | "join_timeout"
  | "digital_human_timeout"
  | "max_duration"
  | "departure_timeout"
  | "digital_human_lost"
  | "dispatch_check";
/** Every lifecycle timer: what `cancel_timers` removes when a session ends. */
export const LIFECYCLE_TIMERS = [
  "join_timeout",
  "digital_human_timeout",
  "max_duration",
  "departure_timeout",
  "digital_human_lost",
  "dispatch_check",
] as const satisfies readonly LifecycleTimer[];
/**
 * `room_deletion` is an ended session's obligation to delete its room: scheduled before the deletion is
 * tried and cancelled once LiveKit confirmed it, so a deletion that failed (LiveKit unreachable, this
 * replica gone) is tried again, by any replica, until it succeeds. It survives `cancel_timers`.
 */
export type ObligationTimer = LifecycleTimer | "room_deletion";

export type Effect =
  /** Delete the LiveKit room, disconnecting whoever is in it. */
  | { type: "delete_room" }
  /** Fire this timer at this time (ms since the epoch). */
  | { type: "schedule"; timer: ObligationTimer; at: number }
  /** This timer is not needed any more. */
  | { type: "cancel_timer"; timer: ObligationTimer }
  /** Dispatch the digital human's agent to the room again, unless LiveKit has a live job for it. */
  | { type: "ensure_dispatch" }
  /** No timer of this session's life is needed any more. */
  | { type: "cancel_timers" };

export interface Durations {
  joinTimeoutS: number;
  digitalHumanJoinTimeoutS: number;
  maxDurationS: number;
  /** How long an active session waits for its participant to come back after leaving. */
  departureTimeoutS: number;
  /** How soon, while the digital human is absent, LiveKit is first asked whether it has a job for it. */
  redispatchS: number;
  /** How long a terminal session is kept (readable and listed) before it is deleted. */
  retentionS: number;
}

export interface TransitionResult {
  session: SessionRecord;
  /** False when the event changed nothing (the store need not be written). */
  changed: boolean;
  effects: Effect[];
}

/**
 * Conditions on a session's data, not only its status: a timer that must not fire once something has
 * happened. A guarded outcome applies only while its condition holds; otherwise the event is ignored.
 */
const GUARDS = {
  /** The digital human has not joined (yet). */
  digitalHumanMissing: (s: SessionRecord) => s.digital_human_joined_at === null,
  /** The digital human joined, left, and has not come back. */
  digitalHumanGone: (s: SessionRecord) => s.digital_human_left_at !== null,
  /** The session's participant left and has not come back. */
  participantGone: (s: SessionRecord) => s.participant_left_at !== null,
} as const;

type Outcome =
  | { to: SessionStatus; reason?: EndReason; when?: keyof typeof GUARDS }
  | "mark_digital_human"
  | "digital_human_departed"
  | "check_dispatch"
  | "participant_returned"
  | "participant_departed"
  | "room_closed"
  | "ignore"
  | "delete_room";

// A room deletion that failed is tried again after as long as the session has been ended, within these
// bounds: quickly after a blip, every few minutes through a long outage of LiveKit.
const ROOM_DELETION_FIRST_RETRY_MS = 5_000;
const ROOM_DELETION_MAX_RETRY_MS = 300_000;

/**
 * Deleting the room as an obligation: the retry is scheduled first, the deletion tried, and the retry
 * cancelled only once the deletion succeeded (effects stop at the first that fails).
 */
function deleteRoomOwed(session: SessionRecord, now: Date): Effect[] {
  const endedFor = now.getTime() - Date.parse(session.ended_at ?? now.toISOString());
  const wait = Math.min(ROOM_DELETION_MAX_RETRY_MS, Math.max(ROOM_DELETION_FIRST_RETRY_MS, endedFor));
  return [
    { type: "schedule", timer: "room_deletion", at: now.getTime() + wait },
    { type: "delete_room" },
    { type: "cancel_timer", timer: "room_deletion" },
  ];
}

/**
 * What each event does in each state. Terminal states answer every event alike: a participant who joins
 * a terminal session's room (an old token) gets the room deleted again, as does a room deletion still
 * owed; everything else is ignored.
 */
export const TRANSITIONS: Readonly<Record<SessionStatus, Readonly<Record<SessionEvent["type"], Outcome>>>> = {
  created: {
    participant_joined: { to: "active" },
    participant_left: "ignore",
    digital_human_joined: "mark_digital_human",
    digital_human_left: "digital_human_departed",
    other_participant_joined: "ignore",
    room_finished: "room_closed",
    end_requested: { to: "cancelled", reason: "user_ended" },
    digital_human_ended: { to: "cancelled", reason: "digital_human_ended" },
    join_timeout: { to: "cancelled", reason: "join_timeout" },
    digital_human_timeout: "ignore",
    max_duration: "ignore",
    departure_timeout: "ignore",
    digital_human_lost: "ignore",
    dispatch_check: "check_dispatch",
    room_deletion: "ignore",
  },
  active: {
    participant_joined: "participant_returned",
    participant_left: "participant_departed",
    digital_human_joined: "mark_digital_human",
    digital_human_left: "digital_human_departed",
    other_participant_joined: "ignore",
    room_finished: "room_closed",
    end_requested: { to: "completed", reason: "user_ended" },
    digital_human_ended: { to: "completed", reason: "digital_human_ended" },
    join_timeout: "ignore",
    digital_human_timeout: { to: "failed", reason: "digital_human_timeout", when: "digitalHumanMissing" },
    max_duration: { to: "completed", reason: "max_duration" },
    departure_timeout: { to: "completed", reason: "participant_left", when: "participantGone" },
    digital_human_lost: { to: "failed", reason: "digital_human_lost", when: "digitalHumanGone" },
    dispatch_check: "check_dispatch",
    room_deletion: "ignore",
  },
  completed: terminal(),
  cancelled: terminal(),
  failed: terminal(),
};

function terminal(): Record<SessionEvent["type"], Outcome> {
  return {
    participant_joined: "delete_room",
    participant_left: "ignore",
    digital_human_joined: "delete_room",
    digital_human_left: "ignore",
    other_participant_joined: "delete_room",
    room_finished: "ignore",
    end_requested: "ignore",
    digital_human_ended: "ignore",
    join_timeout: "ignore",
    digital_human_timeout: "ignore",
    max_duration: "ignore",
    departure_timeout: "ignore",
    digital_human_lost: "ignore",
    dispatch_check: "ignore",
    room_deletion: "delete_room",
  };
}

/** The timers a newly created session needs. */
export function timersOnCreate(session: SessionRecord, durations: Durations): Effect[] {
  const created = Date.parse(session.created_at);
  return [
    { type: "schedule", timer: "join_timeout", at: created + durations.joinTimeoutS * 1000 },
    // LiveKit dispatches an agent once; if no worker took it, nobody asks again unless we do.
    { type: "schedule", timer: "dispatch_check", at: created + durations.redispatchS * 1000 },
  ];
}

// Checks back off while the digital human stays away: each waits as long as the absence has lasted,
// from redispatchS up to this, so a slow-booting avatar is asked about rarely and never doubled.
const MAX_DISPATCH_CHECK_MS = 60_000;

/** Whether the digital human is in the room as far as LiveKit's events tell. */
export function digitalHumanPresent(session: SessionRecord): boolean {
  return session.digital_human_joined_at !== null && session.digital_human_left_at === null;
}

/**
 * Why a session ended when LiveKit closed its room. LiveKit closes a room by itself only once nobody but
 * agents is in it, after timeouts the service sets longer than its own: so a room closed while the
 * participant was gone ended because they left, and one closed past the join deadline because nobody
 * joined. The service's timer would have said the same had it fired first (a replica down, a late sweep).
 */
function roomClosedReason(session: SessionRecord, now: Date, durations: Durations): EndReason {
  if (session.status === "active" && GUARDS.participantGone(session)) return "participant_left";
  if (session.status === "created" && now.getTime() >= Date.parse(session.created_at) + durations.joinTimeoutS * 1000)
    return "join_timeout";
  return "room_finished";
}

export function transition(session: SessionRecord, event: SessionEvent, now: Date, durations: Durations): TransitionResult {
  let outcome = TRANSITIONS[session.status][event.type];
  const unchanged = (effects: Effect[] = []): TransitionResult => ({ session, changed: false, effects });
  const changedTo = (next: SessionRecord, effects: Effect[] = []): TransitionResult => ({ session: next, changed: true, effects });

  switch (outcome) {
    case "ignore":
      return unchanged();
    case "delete_room":
      return unchanged(deleteRoomOwed(session, now));
    case "mark_digital_human": {
      if (digitalHumanPresent(session)) return unchanged();
      // Whatever waited for it (the dispatch checks, and an active session's join or loss timer) is over.
      const waiting: LifecycleTimer = session.digital_human_joined_at === null ? "digital_human_timeout" : "digital_human_lost";
      const effects: Effect[] = [{ type: "cancel_timer", timer: "dispatch_check" }];
      if (session.status === "active") effects.push({ type: "cancel_timer", timer: waiting });
      const joinedAt = session.digital_human_joined_at ?? now.toISOString();
      return changedTo({ ...session, digital_human_joined_at: joinedAt, digital_human_left_at: null }, effects);
    }
    case "digital_human_departed": {
      if (!digitalHumanPresent(session)) return unchanged();
      const at = now.getTime();
      const effects: Effect[] = [{ type: "schedule", timer: "dispatch_check", at: at + durations.redispatchS * 1000 }];
      if (session.status === "active")
        effects.push({ type: "schedule", timer: "digital_human_lost", at: at + durations.digitalHumanJoinTimeoutS * 1000 });
      return changedTo({ ...session, digital_human_left_at: now.toISOString() }, effects);
    }
    case "check_dispatch": {
      if (digitalHumanPresent(session)) return unchanged();
      const absentSince = Date.parse(session.digital_human_left_at ?? session.created_at);
      const wait = Math.min(MAX_DISPATCH_CHECK_MS, Math.max(durations.redispatchS * 1000, now.getTime() - absentSince));
      return unchanged([{ type: "ensure_dispatch" }, { type: "schedule", timer: "dispatch_check", at: now.getTime() + wait }]);
    }
    case "participant_returned": {
      // A new connection of the participant (a reload, a reconnect): it is the one whose leaving counts.
      const sid = (event as { sid: string }).sid;
      if (session.participant_sid === sid && session.participant_left_at === null) return unchanged();
      return changedTo({ ...session, participant_sid: sid, participant_left_at: null }, [
        { type: "cancel_timer", timer: "departure_timeout" },
      ]);
    }
    case "participant_departed":
      // An older connection leaving after a newer one joined (LiveKit drops the old one on a reload) is
      // no departure; nor is a second report of the same one.
      if ((event as { sid: string }).sid !== session.participant_sid || session.participant_left_at !== null) return unchanged();
      return changedTo({ ...session, participant_left_at: now.toISOString() }, [
        { type: "schedule", timer: "departure_timeout", at: now.getTime() + durations.departureTimeoutS * 1000 },
      ]);
    case "room_closed":
      outcome = { to: session.status === "created" ? "cancelled" : "completed", reason: roomClosedReason(session, now, durations) };
      break;
  }
  if (outcome.when !== undefined && !GUARDS[outcome.when](session)) return unchanged();

  const at = now.toISOString();
  if (TERMINAL.has(outcome.to)) {
    const ended: SessionRecord = { ...session, status: outcome.to, end_reason: outcome.reason ?? null, ended_at: at };
    // The room goes too, except when LiveKit already closed it (room_finished) or endSession deleted it
    // before the change was stored (so that LiveKit being down leaves the session unchanged).
    const roomGone = event.type === "room_finished" || event.type === "end_requested";
    return changedTo(ended, roomGone ? [{ type: "cancel_timers" }] : [{ type: "cancel_timers" }, ...deleteRoomOwed(ended, now)]);
  }

  // created -> active
  const started = now.getTime();
  const effects: Effect[] = [{ type: "schedule", timer: "max_duration", at: started + durations.maxDurationS * 1000 }];
  if (!digitalHumanPresent(session)) {
    // Never joined: it has the join timeout to come; joined and left before the participant came: it was lost.
    const timer = session.digital_human_joined_at === null ? "digital_human_timeout" : "digital_human_lost";
    effects.push({ type: "schedule", timer, at: started + durations.digitalHumanJoinTimeoutS * 1000 });
  }
  const sid = event.type === "participant_joined" ? event.sid : null;
  return changedTo({ ...session, status: "active", started_at: at, participant_sid: sid, participant_left_at: null }, effects);
}
