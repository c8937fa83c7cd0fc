import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../test/support/session-fixtures.js";
import type { SessionRecord } from "../domain/session.js";
import { decodeSession, encodeSession, idempotencyRecord } from "./keys.js";

const base: SessionRecord = sessionRecord({ tags: ["t"], metadata: { nested: { a: [1, null] } }, created_at: "2026-11-22T09:15:00.000Z" });

describe("encodeSession / decodeSession", () => {
  it.each([
    ["a new session", base],
    [
      "an ended session",
      {
        ...base,
        status: "completed",
        end_reason: "user_ended",
        digital_human_joined_at: "2026-11-22T09:15:01.000Z",
        started_at: "2026-11-22T09:15:02.000Z",
        ended_at: "2026-11-22T09:20:00.000Z",
      },
    ],
  ] as const)("round-trips %s exactly", (_name, record) => {
    expect(decodeSession(encodeSession(record as SessionRecord), record.account_id, record.id)).toEqual(record);
  });

  it("stores neither what the key says nor nulls", () => {
    const stored = JSON.parse(encodeSession(base)) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(["created_at", "digital_human_id", "metadata", "participant_identity", "status", "tags"]);
  });
});

describe("idempotencyRecord", () => {
  it.each([
    ["a pending record", idempotencyRecord.pending("fp_1", "lock-1", "s-1"), { state: "p", fingerprint: "fp_1", sessionId: "s-1" }],
    [
      "a done record",
      idempotencyRecord.done("fp_2", "3fa85f64-5717-4562-b3fc-2c963f66afa6"),
      { state: "d", fingerprint: "fp_2", sessionId: "3fa85f64-5717-4562-b3fc-2c963f66afa6" },
    ],
    ["a failed create's record", idempotencyRecord.abandoned("fp_3", "s-3"), { state: "a", fingerprint: "fp_3", sessionId: "s-3" }],
  ])("reads back %s as written", (_name, record, want) => {
    expect(idempotencyRecord.parse(record)).toEqual(want);
  });
});
