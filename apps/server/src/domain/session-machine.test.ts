import type { SessionStatus } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { type Effect, type SessionEvent, TRANSITIONS, transition } from "./session-machine.js";
import type { SessionRecord } from "./session.js";

const durations = { joinTimeoutS: 600, digitalHumanJoinTimeoutS: 60, maxDurationS: 1800, retentionS: 30 * 86_400 };
const NOW = new Date("2026-11-22T10:00:00.000Z");
const T = NOW.getTime();

function session(status: SessionStatus, extra: Partial<SessionRecord> = {}): SessionRecord {
  const terminal = status === "completed" || status === "cancelled" || status === "failed";
  return {
    id: "s1",
    account_id: "a1",
    status,
    room_name: "dhs-s1",
    participant_identity: "u",
    digital_human_id: "d",
    tags: [],
    metadata: {},
    end_reason: terminal ? "user_ended" : null,
    digital_human_joined_at: null,
    created_at: "2026-11-22T09:00:00.000Z",
    started_at: status === "created" || status === "cancelled" ? null : "2026-11-22T09:01:00.000Z",
    ended_at: terminal ? "2026-11-22T09:30:00.000Z" : null,
    ...extra,
  };
}

type Want = { status: SessionStatus; reason?: string | null; effects: Effect[]; changed: boolean; dh?: boolean };
const ended = (status: SessionStatus, reason: string, deleteRoom = true): Want => ({
  status,
  reason,
  changed: true,
  // Ending cancels the life's timers and schedules the session's deletion when its retention ends.
  effects: [{ type: "cancel_timers" }, { type: "schedule", timer: "purge", at: T + 30 * 86_400_000 }, ...(deleteRoom ? [{ type: "delete_room" } as const] : [])],
});
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
    digital_human_joined: { status: "created", changed: true, effects: [], dh: true },
    other_participant_joined: same("created"),
    room_finished: ended("cancelled", "room_finished", false),
    end_requested: ended("cancelled", "user_ended", false),
    join_timeout: ended("cancelled", "join_timeout"),
    digital_human_timeout: same("created"),
    max_duration: same("created"),
  },
  active: {
    participant_joined: same("active"),
    digital_human_joined: { status: "active", changed: true, effects: [], dh: true },
    other_participant_joined: same("active"),
    room_finished: ended("completed", "room_finished", false),
    end_requested: ended("completed", "user_ended", false),
    join_timeout: same("active"),
    digital_human_timeout: ended("failed", "digital_human_timeout"),
    max_duration: ended("completed", "max_duration"),
  },
  completed: terminalRow("completed"),
  cancelled: terminalRow("cancelled"),
  failed: terminalRow("failed"),
};

function terminalRow(status: SessionStatus): Record<SessionEvent["type"], Want> {
  const deleteAgain = same(status, [{ type: "delete_room" }]);
  return {
    participant_joined: deleteAgain,
    digital_human_joined: deleteAgain,
    other_participant_joined: deleteAgain,
    room_finished: same(status),
    end_requested: same(status),
    join_timeout: same(status),
    digital_human_timeout: same(status),
    max_duration: same(status),
  };
}

const cases = Object.entries(table).flatMap(([status, row]) =>
  Object.entries(row).map(([event, want]) => [status as SessionStatus, event as SessionEvent["type"], want] as const),
);

describe("transition: every state x every event", () => {
  it("covers the whole transition table", () => {
    expect(cases).toHaveLength(Object.keys(TRANSITIONS).length * Object.keys(TRANSITIONS.created).length);
  });

  it.each(cases)("%s + %s", (status, type, want) => {
    const before = session(status);
    const result = transition(before, { type }, NOW, durations);
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
    const result = transition(session("created", { digital_human_joined_at: "2026-11-22T09:59:00.000Z" }), { type: "participant_joined" }, NOW, durations);
    expect(result.session.started_at).toBe(NOW.toISOString());
    expect(result.effects).toEqual([{ type: "schedule", timer: "max_duration", at: T + 1800_000 }]);
  });

  it("marks the digital human once: a second agent join changes nothing", () => {
    const marked = session("active", { digital_human_joined_at: "2026-11-22T09:59:00.000Z" });
    expect(transition(marked, { type: "digital_human_joined" }, NOW, durations)).toEqual({ session: marked, changed: false, effects: [] });
  });

  it("never changes ended_at or end_reason of a terminal session", () => {
    for (const status of ["completed", "cancelled", "failed"] as const) {
      for (const type of Object.keys(TRANSITIONS.created) as SessionEvent["type"][]) {
        const before = session(status);
        const after = transition(before, { type }, NOW, durations).session;
        expect([after.ended_at, after.end_reason, after.status]).toEqual([before.ended_at, before.end_reason, before.status]);
      }
    }
  });
});
