import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../../test/support/session-fixtures.js";
import { dataOwner } from "../accounts/api-keys.js";
import { activeSeconds, sessionEvents } from "./session-events.js";

const now = new Date("2026-11-22T09:20:00.000Z");
const typesOf = (before: Parameters<typeof sessionEvents>[0], after: Parameters<typeof sessionEvents>[1]) =>
  sessionEvents(before, after, now, 1000).map((e) => e.type);

describe("sessionEvents", () => {
  const created = sessionRecord({ created_at: "2026-11-22T09:15:00.000Z" });
  const active = { ...created, status: "active" as const, started_at: "2026-11-22T09:15:07.412Z" };

  it("a new session: session.created", () => {
    expect(typesOf(undefined, created)).toEqual(["session.created"]);
  });

  it("created -> active: session.active; the digital human's first join: session.digital_human_joined; a rejoin: nothing", () => {
    expect(typesOf(created, active)).toEqual(["session.active"]);
    const joined = { ...active, digital_human_joined_at: "2026-11-22T09:15:08.000Z" };
    expect(typesOf(active, joined)).toEqual(["session.digital_human_joined"]);
    const left = { ...joined, digital_human_left_at: "2026-11-22T09:16:00.000Z" };
    expect(typesOf(joined, left)).toEqual([]);
    expect(typesOf(left, { ...left, digital_human_left_at: null })).toEqual([]);
  });

  it("becoming terminal: session.ended, once", () => {
    const ended = { ...active, status: "completed" as const, end_reason: "user_ended" as const, ended_at: now.toISOString() };
    expect(typesOf(active, ended)).toEqual(["session.ended"]);
    expect(typesOf(ended, { ...ended, participant_left_at: now.toISOString() })).toEqual([]);
  });

  it("payloads are {type, mode, timestamp, data} with the session summary and duration_seconds, never a token", () => {
    const ended = { ...active, status: "completed" as const, end_reason: "max_duration" as const, ended_at: "2026-11-22T09:15:17.413Z" };
    const [event] = sessionEvents(active, ended, now, 1000);
    const payload = JSON.parse(event?.body ?? "{}");
    expect(Object.keys(payload).sort()).toEqual(["data", "mode", "timestamp", "type"]);
    expect(payload.mode).toBe("live");
    expect(payload.timestamp).toBe(now.toISOString());
    expect(payload.data).toMatchObject({ id: ended.id, status: "completed", end_reason: "max_duration", duration_seconds: 11 });
    expect(event?.body).not.toMatch(/token|secret/);
    expect(event?.id).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  it("say the mode of the session's owner: test for an account's test side", () => {
    const ended = {
      ...active,
      account_id: dataOwner(active.account_id, "test"),
      status: "completed" as const,
      ended_at: now.toISOString(),
    };
    const [event] = sessionEvents(active, ended, now, 1000);
    expect(JSON.parse(event?.body ?? "{}").mode).toBe("test");
  });
});

describe("activeSeconds", () => {
  it("is 0 before the session started, rounds up, and counts to now while it runs", () => {
    expect(activeSeconds(sessionRecord(), now)).toBe(0);
    const started = sessionRecord({ status: "active", started_at: "2026-11-22T09:19:58.001Z" });
    expect(activeSeconds(started, now)).toBe(2);
    expect(activeSeconds({ ...started, ended_at: "2026-11-22T09:19:58.001Z" }, now)).toBe(0);
  });
});
