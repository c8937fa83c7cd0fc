import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../domain/session.js";
import { decodeSession, encodeSession } from "./keys.js";

const base: SessionRecord = {
  id: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  account_id: "acct_1",
  status: "created",
  room_name: "dhs-3fa85f64-5717-4562-b3fc-2c963f66afa6",
  participant_identity: "u",
  digital_human_id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
  tags: ["t"],
  metadata: { nested: { a: [1, null] } },
  end_reason: null,
  digital_human_joined_at: null,
  digital_human_left_at: null,
  participant_sid: null,
  participant_left_at: null,
  created_at: "2026-11-22T09:15:00.000Z",
  started_at: null,
  ended_at: null,
};

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
