import type { SessionStatus } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { DURATIONS, sessionRecord } from "../../../test/support/session-fixtures.js";
import type { SessionRecord } from "./session.js";
import { type Effect, type SessionEvent, TRANSITIONS, transition } from "./session-machine.js";

const durations = DURATIONS;
const NOW = new Date("2026-11-22T10:00:00.000Z");
const T = NOW.getTime();

function session(status: SessionStatus, extra: Partial<SessionRecord> = {}): SessionRecord {
  const terminal = status === "completed" || status === "cancelled" || status === "failed";
  const started = status !== "created" && status !== "cancelled";
  return sessionRecord({
    id: "s1",
    status,
    end_reason: terminal ? "user_ended" : null,
    participant_sid: started ? "PA_u" : null,
    started_at: started ? "2026-11-22T09:01:00.000Z" : null,
    ended_at: terminal ? "2026-11-22T09:30:00.000Z" : null,
    ...extra,
  });
}

type Want = { status: SessionStatus; reason?: string | null; effects: Effect[]; changed: boolean; dh?: boolean };
const ended = (status: SessionStatus, reason: string, deleteRoom = true): Want => ({
  status,
  reason,
  changed: true,
  // Ending cancels the life's timers; the store expires the session when its retention ends.
  effects: [
    { type: "cancel_timers" },
    // The room's deletion is owed: its retry scheduled first (5 s on), cancelled once it succeeded.
    ...(deleteRoom ? roomDeletionOwed(5_000) : []),
  ],
});
function roomDeletionOwed(retryInMs: number): Effect[] {
  return [
    { type: "schedule", timer: "room_deletion", at: T + retryInMs },
    { type: "delete_room" },
    { type: "cancel_timer", timer: "room_deletion" },
  ];
}
const same = (status: SessionStatus, effects: Effect[] = []): Want => ({ status, changed: false, effects });

// Every state x every event: the whole table, spelled out, so a change to it is a visible change here.
const table: Record<SessionStatus, Record<SessionEvent["type"], Want>> = {
  created: {
    participant_joined: {
      status: "active",
      changed: true,
      effects: [
        { type: "schedule", timer: "max_duration", at: T + 1800_000 },
        { type: "schedule", timer: "digital_human_timeout", at: T + 60_000 },
      ],
    },
    digital_human_joined: { status: "created", changed: true, effects: [{ type: "cancel_timer", timer: "dispatch_check" }], dh: true },
    other_participant_joined: same("created"),
    // The base session was created an hour ago, past its join timeout: LiveKit's empty timeout, which
    // backs the join timer up, closed the room (see "details" for a room closed sooner).
    room_finished: ended("cancelled", "join_timeout", false),
    end_requested: ended("cancelled", "user_ended", false),
    digital_human_ended: ended("cancelled", "digital_human_ended", true),
    join_timeout: ended("cancelled", "join_timeout"),
    digital_human_timeout: same("created"),
    max_duration: same("created"),
    participant_left: same("created"),
    departure_timeout: same("created"),
    // The digital human is not there (the base session's has not joined): nothing to leave.
    digital_human_left: same("created"),
    digital_human_lost: same("created"),
    dispatch_check: same("created", [{ type: "ensure_dispatch" }, { type: "schedule", timer: "dispatch_check", at: T + 60_000 }]),
    room_deletion: same("created"),
  },
  active: {
    // The same connection joining again changes nothing; another one is the subject of "details" below.
    participant_joined: same("active"),
    digital_human_joined: {
      status: "active",
      changed: true,
      effects: [
        { type: "cancel_timer", timer: "dispatch_check" },
        { type: "cancel_timer", timer: "digital_human_timeout" },
      ],
      dh: true,
    },
    other_participant_joined: same("active"),
    room_finished: ended("completed", "room_finished", false),
    end_requested: ended("completed", "user_ended", false),
    digital_human_ended: ended("completed", "digital_human_ended", true),
    join_timeout: same("active"),
    digital_human_timeout: ended("failed", "digital_human_timeout"),
    max_duration: ended("completed", "max_duration"),
    participant_left: { status: "active", changed: true, effects: [{ type: "schedule", timer: "departure_timeout", at: T + 30_000 }] },
    // The participant is there (it never left), so the timer is stale.
    departure_timeout: same("active"),
    digital_human_left: same("active"),
    // It never joined, so it was not lost (the digital-human timeout covers it).
    digital_human_lost: same("active"),
    dispatch_check: same("active", [{ type: "ensure_dispatch" }, { type: "schedule", timer: "dispatch_check", at: T + 60_000 }]),
    room_deletion: same("active"),
  },
  completed: terminalRow("completed"),
  cancelled: terminalRow("cancelled"),
  failed: terminalRow("failed"),
};

function terminalRow(status: SessionStatus): Record<SessionEvent["type"], Want> {
  // Ended half an hour ago: a retry of the deletion waits the longest, 5 minutes.
  const deleteAgain = same(status, roomDeletionOwed(300_000));
  return {
    participant_joined: deleteAgain,
    digital_human_joined: deleteAgain,
    other_participant_joined: deleteAgain,
    room_finished: same(status),
    end_requested: same(status),
    digital_human_ended: same(status),
    join_timeout: same(status),
    digital_human_timeout: same(status),
    max_duration: same(status),
    participant_left: same(status),
    departure_timeout: same(status),
    digital_human_left: same(status),
    digital_human_lost: same(status),
    dispatch_check: same(status),
    room_deletion: deleteAgain,
  };
}

/** The event of a type as the service sends it: the participant's own events name its connection. */
function eventOf(type: SessionEvent["type"]): SessionEvent {
  return type === "participant_joined" || type === "participant_left" ? { type, sid: "PA_u" } : { type };
}

const cases = Object.entries(table).flatMap(([status, row]) =>
  Object.entries(row).map(([event, want]) => [status as SessionStatus, event as SessionEvent["type"], want] as const),
);

describe("transition: every state x every event", () => {
  it.each(cases)("%s + %s", (status, type, want) => {
    const before = session(status);
    const result = transition(before, eventOf(type), NOW, durations);
    expect(result.session.status).toBe(want.status);
    expect(result.changed).toBe(want.changed);
    expect(result.effects).toEqual(want.effects);
    if (!want.changed) expect(result.session).toBe(before);
    if (want.reason !== undefined) {
      expect(result.session.end_reason).toBe(want.reason);
      expect(result.session.ended_at).toBe(NOW.toISOString());
    }
    if (want.dh) expect(result.session.digital_human_joined_at).toBe(NOW.toISOString());
  });
});

describe("transition: details", () => {
  it("sets started_at when the participant joins, and no digital human timer when the agent is already there", () => {
    const result = transition(
      session("created", { digital_human_joined_at: "2026-11-22T09:59:00.000Z" }),
      { type: "participant_joined", sid: "PA_1" },
      NOW,
      durations,
    );
    expect(result.session.started_at).toBe(NOW.toISOString());
    expect(result.session.participant_sid).toBe("PA_1");
    expect(result.effects).toEqual([{ type: "schedule", timer: "max_duration", at: T + 1800_000 }]);
  });

  it("marks the digital human once: a second agent join changes nothing", () => {
    const marked = session("active", { digital_human_joined_at: "2026-11-22T09:59:00.000Z" });
    expect(transition(marked, { type: "digital_human_joined" }, NOW, durations)).toEqual({ session: marked, changed: false, effects: [] });
  });

  it("does not fail an active session for its digital human once the digital human has joined", () => {
    const joinedLate = session("active", { digital_human_joined_at: "2026-11-22T09:59:30.000Z" });
    expect(transition(joinedLate, { type: "digital_human_timeout" }, NOW, durations)).toEqual({
      session: joinedLate,
      changed: false,
      effects: [],
    });
  });

  it.each([
    ["an active session whose participant is there", session("active"), "completed", "room_finished"],
    [
      "an active session whose participant left (LiveKit's departure timeout came first)",
      session("active", { participant_left_at: "2026-11-22T09:59:30.000Z" }),
      "completed",
      "participant_left",
    ],
    [
      "a session nobody joined, within its join timeout (deleted outside this API)",
      session("created", { created_at: "2026-11-22T09:55:00.000Z" }),
      "cancelled",
      "room_finished",
    ],
    [
      "a session nobody joined, past its join timeout (LiveKit's empty timeout came first)",
      session("created", { created_at: "2026-11-22T09:50:00.000Z" }),
      "cancelled",
      "join_timeout",
    ],
  ])("ends %s, when LiveKit closes its room, for the reason that closed it", (_name, before, status, reason) => {
    const result = transition(before, { type: "room_finished" }, NOW, durations);
    expect(result.session).toMatchObject({ status, end_reason: reason, ended_at: NOW.toISOString() });
    // LiveKit closed it: nothing to delete.
    expect(result.effects).not.toContainEqual({ type: "delete_room" });
  });

  it("completes an active session whose participant left and did not come back", () => {
    const gone = session("active", { participant_left_at: "2026-11-22T09:59:30.000Z" });
    const result = transition(gone, { type: "departure_timeout" }, NOW, durations);
    expect(result.session).toMatchObject({ status: "completed", end_reason: "participant_left", ended_at: NOW.toISOString() });
    expect(result.effects).toContainEqual({ type: "delete_room" });
  });

  it("takes a new connection of the participant as its return: the departure timer is cancelled", () => {
    const gone = session("active", { participant_left_at: "2026-11-22T09:59:30.000Z" });
    const result = transition(gone, { type: "participant_joined", sid: "PA_2" }, NOW, durations);
    expect(result.session).toMatchObject({ status: "active", participant_sid: "PA_2", participant_left_at: null });
    expect(result.effects).toEqual([{ type: "cancel_timer", timer: "departure_timeout" }]);
  });

  it("ignores an older connection leaving after a newer one joined (a page reload)", () => {
    const reloaded = session("active", { participant_sid: "PA_new" });
    expect(transition(reloaded, { type: "participant_left", sid: "PA_old" }, NOW, durations).changed).toBe(false);
  });

  it("when the digital human leaves an active session, checks for its job soon and bounds its return by the join timeout", () => {
    const present = session("active", { digital_human_joined_at: "2026-11-22T09:59:00.000Z" });
    const result = transition(present, { type: "digital_human_left" }, NOW, durations);
    expect(result.session.digital_human_left_at).toBe(NOW.toISOString());
    expect(result.effects).toEqual([
      { type: "schedule", timer: "dispatch_check", at: T + 5_000 },
      { type: "schedule", timer: "digital_human_lost", at: T + 60_000 },
    ]);
    const lost = transition(result.session, { type: "digital_human_lost" }, NOW, durations);
    expect(lost.session).toMatchObject({ status: "failed", end_reason: "digital_human_lost" });
  });

  it("takes the digital human's return as the end of every wait for it", () => {
    const gone = session("active", {
      digital_human_joined_at: "2026-11-22T09:58:00.000Z",
      digital_human_left_at: "2026-11-22T09:59:00.000Z",
    });
    const result = transition(gone, { type: "digital_human_joined" }, NOW, durations);
    expect(result.session).toMatchObject({ digital_human_joined_at: "2026-11-22T09:58:00.000Z", digital_human_left_at: null });
    expect(result.effects).toEqual([
      { type: "cancel_timer", timer: "dispatch_check" },
      { type: "cancel_timer", timer: "digital_human_lost" },
    ]);
    expect(transition(result.session, { type: "digital_human_lost" }, NOW, durations).changed).toBe(false);
  });

  it.each([
    ["5 s after the digital human left", "2026-11-22T09:59:55.000Z", 5_000],
    ["20 s after it left", "2026-11-22T09:59:40.000Z", 20_000],
    ["an hour after it left", "2026-11-22T09:00:00.000Z", 60_000],
  ])("checks for the digital human's job again, %s, after as long as it has been away (5 s to 60 s)", (_name, leftAt, wait) => {
    const gone = session("active", { digital_human_joined_at: "2026-11-22T09:00:00.000Z", digital_human_left_at: leftAt });
    expect(transition(gone, { type: "dispatch_check" }, NOW, durations).effects).toEqual([
      { type: "ensure_dispatch" },
      { type: "schedule", timer: "dispatch_check", at: T + wait },
    ]);
  });

  it("does not check for a digital human that is there", () => {
    const present = session("active", { digital_human_joined_at: "2026-11-22T09:59:00.000Z" });
    expect(transition(present, { type: "dispatch_check" }, NOW, durations)).toEqual({ session: present, changed: false, effects: [] });
  });

  it("never changes ended_at or end_reason of a terminal session", () => {
    for (const status of ["completed", "cancelled", "failed"] as const) {
      for (const type of Object.keys(TRANSITIONS.created) as SessionEvent["type"][]) {
        const before = session(status);
        const after = transition(before, eventOf(type), NOW, durations).session;
        expect([after.ended_at, after.end_reason, after.status]).toEqual([before.ended_at, before.end_reason, before.status]);
      }
    }
  });
});

describe("a room deletion still owed", () => {
  it.each([
    ["1 s", 1_000, 5_000],
    ["40 s", 40_000, 40_000],
    ["2 hours", 7_200_000, 300_000],
  ])("after the session has been ended for %s, is tried again %i ms later should this try fail too", (_name, endedForMs, retryInMs) => {
    const before = session("completed", { ended_at: new Date(T - endedForMs).toISOString() });
    const { effects } = transition(before, { type: "room_deletion" }, NOW, durations);
    expect(effects).toEqual([
      { type: "schedule", timer: "room_deletion", at: T + retryInMs },
      { type: "delete_room" },
      { type: "cancel_timer", timer: "room_deletion" },
    ]);
  });
});
