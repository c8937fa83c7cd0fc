import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../test/support/session-fixtures.js";
import type { SessionRecord } from "../domain/sessions/session.js";
import { decodeSession, decodeStoredSession, encodeSession } from "./session-format.js";

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
    expect(decodeSession(encodeSession(record as SessionRecord), record.id)).toEqual(record);
  });

  it("stores its account (sessions are kept by id, and reads check it), but neither what the key says nor nulls", () => {
    const stored = JSON.parse(encodeSession(base)) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual([
      "account_id",
      "created_at",
      "digital_human_id",
      "metadata",
      "participant_identity",
      "status",
      "tags",
      "v",
    ]);
  });

  it("refuses a record written in another format instead of misreading it", () => {
    const other = JSON.stringify({ ...JSON.parse(encodeSession(base)), v: 1 });
    expect(() => decodeSession(other, base.id)).toThrow(/format 1, this server reads 2/);
    const unversioned = JSON.stringify({ ...JSON.parse(encodeSession(base)), v: undefined });
    expect(() => decodeSession(unversioned, base.id)).toThrow(/format undefined/);
  });

  it("reads the same record from parsed JSON, as PostgreSQL's jsonb column gives it", () => {
    expect(decodeStoredSession(JSON.parse(encodeSession(base)) as object, base.id)).toEqual(base);
  });

  it("refuses a record written in another format instead of misreading it", () => {
    const other = JSON.stringify({ ...JSON.parse(encodeSession(base)), v: 1 });
    expect(() => decodeSession(other, base.id)).toThrow(/format 1, this server reads 2/);
    const unversioned = JSON.stringify({ ...JSON.parse(encodeSession(base)), v: undefined });
    expect(() => decodeSession(unversioned, base.id)).toThrow(/format undefined/);
    expect(() => decodeStoredSession({ ...JSON.parse(encodeSession(base)), v: 3 }, base.id)).toThrow(/format 3/);
  });
});
