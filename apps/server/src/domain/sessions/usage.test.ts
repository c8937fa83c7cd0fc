import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../../test/support/session-fixtures.js";
import { countsOf, daysBetween, usageOf, usageReport } from "./usage.js";

describe("usageOf", () => {
  const created = sessionRecord({ created_at: "2026-11-22T23:59:59.000Z" });
  const active = { ...created, status: "active" as const, started_at: "2026-11-22T23:59:59.500Z" };

  it("counts a creation on its UTC day", () => {
    expect(usageOf(undefined, created)).toEqual({
      day: "2026-11-22",
      fields: [
        ["created", 1],
        [`created_by:${created.digital_human_id}`, 1],
      ],
    });
  });

  it("counts an end on the day it ended, by status and reason, with the active seconds rounded up", () => {
    const ended = { ...active, status: "completed" as const, end_reason: "user_ended" as const, ended_at: "2026-11-23T00:00:02.000Z" };
    expect(usageOf(active, ended)).toEqual({
      day: "2026-11-23",
      fields: [
        ["ended:completed", 1],
        ["reason:user_ended", 1],
        ["active_seconds", 3],
      ],
    });
  });

  it("counts nothing for a change that is no creation and no end, nor for a terminal session changing again", () => {
    expect(usageOf(created, active)).toBeUndefined();
    const cancelled = {
      ...created,
      status: "cancelled" as const,
      end_reason: "join_timeout" as const,
      ended_at: "2026-11-23T00:10:00.000Z",
    };
    expect(usageOf(created, cancelled)?.fields).toEqual([
      ["ended:cancelled", 1],
      ["reason:join_timeout", 1],
    ]);
    expect(usageOf(cancelled, { ...cancelled, participant_left_at: "2026-11-23T00:11:00.000Z" })).toBeUndefined();
  });
});

describe("the usage report", () => {
  it("lists every day of the range, oldest first, and adds up the totals", () => {
    expect(daysBetween("2026-02-27", "2026-03-02")).toEqual(["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]);
    const report = usageReport("2026-11-21", "2026-11-22", [
      {
        created: "2",
        "created_by:a": "2",
        "ended:completed": "1",
        "reason:user_ended": "1",
        active_seconds: "40",
        transcript_segments: "12",
      },
      {
        created: "1",
        "created_by:b": "1",
        "ended:failed": "1",
        "reason:digital_human_lost": "1",
        active_seconds: "7",
        transcript_characters: "300",
        recorded_seconds: "61",
      },
    ]);
    expect(report.days.map((d) => d.date)).toEqual(["2026-11-21", "2026-11-22"]);
    expect(report.totals).toEqual({
      sessions_created: 3,
      sessions_created_by_digital_human: { a: 2, b: 1 },
      sessions_ended: { completed: 1, cancelled: 0, failed: 1 },
      end_reasons: { user_ended: 1, digital_human_lost: 1 },
      active_seconds: 47,
      transcript_segments: 12,
      transcript_characters: 300,
      recorded_seconds: 61,
    });
    expect(report.days[0]?.usage).toEqual(
      countsOf({
        created: "2",
        "created_by:a": "2",
        "ended:completed": "1",
        "reason:user_ended": "1",
        active_seconds: "40",
        transcript_segments: "12",
      }),
    );
  });
});
