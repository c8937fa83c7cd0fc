import { describe, expect, it } from "vitest";
import { LIFECYCLE_TIMERS } from "./session-machine.js";
import { timerChangesFirst } from "./session-transitions.js";

describe("timerChangesFirst", () => {
  const end = [
    { type: "cancel_timers" },
    { type: "schedule", timer: "room_deletion", at: 5 },
    { type: "delete_room" },
    { type: "cancel_timer", timer: "room_deletion" },
  ] as const;

  it("schedules an end's room deletion with it, and leaves its life's timers until its place is given back", () => {
    const { timers, rest } = timerChangesFirst(end, true);
    expect(timers).toEqual({ schedule: [{ timer: "room_deletion", atMs: 5 }], cancel: [] });
    expect(rest).toEqual([{ type: "cancel_timers" }, { type: "delete_room" }, { type: "cancel_timer", timer: "room_deletion" }]);
  });

  it("cancels every timer of the session's life with a change that is no end, and leaves the calls outside for after", () => {
    const { timers, rest } = timerChangesFirst(end, false);
    expect(timers).toEqual({ schedule: [{ timer: "room_deletion", atMs: 5 }], cancel: [...LIFECYCLE_TIMERS] });
    expect(rest).toEqual([{ type: "delete_room" }, { type: "cancel_timer", timer: "room_deletion" }]);
  });

  it("nets a timer scheduled and cancelled in one transition: the later wins", () => {
    expect(
      timerChangesFirst([
        { type: "schedule", timer: "dispatch_check", at: 1 },
        { type: "cancel_timer", timer: "dispatch_check" },
        { type: "cancel_timer", timer: "max_duration" },
        { type: "schedule", timer: "max_duration", at: 2 },
      ]),
    ).toEqual({ timers: { schedule: [{ timer: "max_duration", atMs: 2 }], cancel: ["dispatch_check"] }, rest: [] });
  });

  it("keeps a timer that follows a call outside the store after that call", () => {
    const { timers, rest } = timerChangesFirst([{ type: "ensure_dispatch" }, { type: "schedule", timer: "dispatch_check", at: 3 }]);
    expect(timers).toEqual({ schedule: [], cancel: [] });
    expect(rest).toHaveLength(2);
  });
});
