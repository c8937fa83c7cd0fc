import { describe, expect, it } from "vitest";
import { transcriptStoreContract } from "../../../test/contract/transcript-store.contract.js";
import { MemoryTranscriptStore } from "./transcript-store.js";

transcriptStoreContract("memory", () => new MemoryTranscriptStore());

describe("the memory transcript store", () => {
  it("forgets a transcript once it expired", async () => {
    let now = 1_000;
    const store = new MemoryTranscriptStore(() => now);
    const segment = { id: "a", speaker: "participant" as const, text: "hi", startedAtMs: 1, endedAtMs: 2 };
    await store.appendSegments({
      sessionId: "s",
      segments: [segment],
      final: false,
      maxSegments: 5,
      closesAtMs: undefined,
      nowMs: now,
      expiresAtMs: 2_000,
    });
    expect((await store.readState("s")).segmentCount).toBe(1);
    now = 2_000;
    expect((await store.readState("s")).segmentCount).toBe(0);
  });
});
