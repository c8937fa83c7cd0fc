import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../../test/support/session-fixtures.js";
import { ConversationChanges } from "./conversation-changes.js";
import { JobConversation } from "./job-conversation.js";
import type { ConversationStore } from "./ports.js";

/** The job's side over a store that records every call, for a session as the history holds it (Redis forgot it). */
function jobOf(status: "active" | "completed") {
  const session = sessionRecord({ status, ...(status === "completed" ? { ended_at: "2026-11-27T10:05:00.000Z" } : {}) });
  const calls: string[] = [];
  const store: ConversationStore = {
    readConversation: async () => {
      calls.push("read");
      return { state: undefined, version: 0 as never, fields: [], takesTurnEvents: false };
    },
    writeConversation: async () => {
      calls.push("write");
      return true;
    },
    readConversationFields: async () => {
      calls.push("fields");
      return [];
    },
  };
  const deps = {
    sessions: { getSession: async () => session, findSession: async () => session },
    store,
    nudger: undefined,
    limits: { maxQueued: 5, charactersPerMinute: 1000, sayTtlMs: 60_000, maxNotes: 5 },
    durations: { retentionMs: 86_400_000 } as never,
    eventRetainMs: 3_600_000,
  };
  return { job: new JobConversation(deps, new ConversationChanges(deps)), session, calls };
}

describe("JobConversation on a terminal session", () => {
  it("refuses the pull with session_ended and neither reads nor writes its conversation (nothing is made again)", async () => {
    const { job, session, calls } = jobOf("completed");
    await expect(job.pull(session.id, { after: 0, participant_identity: "agent-1" })).rejects.toMatchObject({ code: "session_ended" });
    const turn = {
      type: "participant_turn" as const,
      id: "t1",
      say: false,
      text: "Hi.",
      started_at: session.created_at,
      ended_at: session.created_at,
    };
    await expect(job.report(session.id, { participant_identity: "agent-1", reports: [turn] })).rejects.toMatchObject({
      code: "session_ended",
    });
    expect(calls).toEqual([]);
  });

  it("answers a pull of an open session", async () => {
    const { job, session, calls } = jobOf("active");
    expect((await job.pull(session.id, { after: 0, participant_identity: "agent-1" })).items).toEqual([]);
    expect(calls[0]).toBe("read");
  });
});
