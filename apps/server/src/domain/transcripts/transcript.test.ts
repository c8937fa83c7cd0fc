import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../sessions/session.js";
import { characterCount, instantMs, spokenOrder, transcriptStatus } from "./transcript.js";

const ENDED = "2026-11-22T09:30:00.000Z";
const session = (over: Partial<SessionRecord>) => ({ status: "completed", ended_at: ENDED, ...over }) as SessionRecord;
const state = (over: { final?: boolean; deletedAtMs?: number | null } = {}) => ({
  segmentCount: 1,
  final: false,
  deletedAtMs: null,
  ...over,
});
const at = (s: number) => Date.parse(ENDED) + s * 1000;
const GRACE = 60_000;

describe("transcriptStatus", () => {
  it.each([
    ["an open session's, final or not", session({ status: "active", ended_at: null }), state({ final: true }), at(0), "in_progress"],
    ["an ended session's within the grace", session({}), state(), at(59), "in_progress"],
    ["an ended session's once the grace passed", session({}), state(), at(60), "complete"],
    ["an ended session's after final", session({}), state({ final: true }), at(1), "complete"],
    ["one whose event was sent", session({ transcript_ready_at: ENDED }), state(), at(1), "complete"],
    ["a deleted one, whatever else", session({}), state({ final: true, deletedAtMs: 1 }), at(99), "deleted"],
  ] as const)("is right for %s", (_name, s, st, now, want) => {
    expect(transcriptStatus(s, st, now, GRACE)).toBe(want);
  });
});

describe("the transcript's order and counts", () => {
  it("orders by start, then id", () => {
    const segments = [
      { startedAtMs: 2, id: "a" },
      { startedAtMs: 1, id: "b" },
      { startedAtMs: 1, id: "a" },
    ];
    expect(segments.sort(spokenOrder)).toEqual([
      { startedAtMs: 1, id: "a" },
      { startedAtMs: 1, id: "b" },
      { startedAtMs: 2, id: "a" },
    ]);
  });

  it("counts characters as code points", () => {
    expect(characterCount("héllo 👋")).toBe(7);
  });
});

describe("instantMs", () => {
  it.each([
    ["an ordinary time", "2026-11-22T09:27:41.250Z", Date.parse("2026-11-22T09:27:41.250Z")],
    ["a leap second, as its minute's last millisecond", "2016-12-31T23:59:60Z", Date.parse("2016-12-31T23:59:59.999Z")],
    ["a leap second with a fraction and an offset", "2016-12-31T18:59:60.5-05:00", Date.parse("2016-12-31T23:59:59.999Z")],
    ["nothing a clock can say", "2026-11-22T25:00:00Z", Number.NaN],
  ])("reads %s", (_case, text, want) => {
    expect(instantMs(text)).toBe(want);
  });
});
