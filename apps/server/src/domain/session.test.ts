import type { SessionStatus } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { isConnectable, roomNameFor, type SessionRecord, toSessionView } from "./session.js";

const record = (status: SessionStatus): SessionRecord => ({
  id: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  account_id: "acct_1",
  status,
  room_name: roomNameFor("3fa85f64-5717-4562-b3fc-2c963f66afa6"),
  participant_identity: "u",
  digital_human_id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
  tags: ["t"],
  metadata: { m: 1 },
  end_reason: null,
  digital_human_joined_at: null,
  digital_human_left_at: null,
  participant_sid: null,
  participant_left_at: null,
  created_at: "2026-11-22T09:15:00.000Z",
  started_at: null,
  ended_at: null,
});

describe("toSessionView", () => {
  it.each([
    ["created", true],
    ["active", true],
    ["completed", false],
    ["cancelled", false],
    ["failed", false],
  ] as const)("%s: connectable %s, token shown only while connectable", (status, connectable) => {
    expect(isConnectable(status)).toBe(connectable);
    const view = toSessionView(record(status), "wss://lk", "jwt");
    expect(view.participant_token).toBe(connectable ? "jwt" : null);
  });

  it("has exactly the eight fields of the specification, none of the record's own", () => {
    expect(Object.keys(toSessionView(record("created"), "wss://lk", "jwt")).sort()).toEqual([
      "created_at",
      "ended_at",
      "id",
      "participant_token",
      "room_name",
      "rtc_url",
      "started_at",
      "status",
    ]);
  });
});
