import type { SessionStatus } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../../test/support/session-fixtures.js";
import { isConnectable, type SessionRecord, toSessionView } from "./session.js";

const record = (status: SessionStatus): SessionRecord =>
  sessionRecord({ status, account_id: "acct_1", tags: ["t"], metadata: { m: 1 }, created_at: "2026-11-22T09:15:00.000Z" });

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
