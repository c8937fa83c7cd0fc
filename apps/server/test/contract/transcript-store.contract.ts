/**
 * The transcript store's port (domain/transcripts/ports.ts) as every adapter must keep it: run on memory
 * (beside the adapter) and on Redis and Redis Cluster (test/store).
 */
import { describe, expect, it } from "vitest";
import type { AppendSegments, TranscriptStore } from "../../src/domain/transcripts/ports.js";
import type { StoredSegment } from "../../src/domain/transcripts/transcript.js";

// The real clock: the stores expire what is past it.
const NOW = Date.now();
const segment = (id: string, startedAtMs: number, text = `text of ${id}`): StoredSegment => ({
  id,
  speaker: "participant",
  text,
  startedAtMs,
  endedAtMs: startedAtMs + 500,
});

export function transcriptStoreContract(adapter: string, make: () => TranscriptStore): void {
  const append = (store: TranscriptStore, sessionId: string, request: Partial<AppendSegments>) =>
    store.appendSegments({
      sessionId,
      segments: [],
      final: false,
      maxSegments: 5,
      closesAtMs: undefined,
      nowMs: NOW,
      expiresAtMs: NOW + 3_600_000,
      ...request,
    });

  describe(`the ${adapter} transcript store`, () => {
    it("stores new segments once, counts the ones it held as duplicates, keeps their first text, and reads them in spoken order", async () => {
      const store = make();
      const id = crypto.randomUUID();
      const first = await append(store, id, { segments: [segment("b", 2), segment("a", 2), segment("c", 1)] });
      expect(first).toMatchObject({ kind: "appended", duplicates: 0, state: { segmentCount: 3, final: false, deletedAtMs: null } });
      const again = await append(store, id, { segments: [segment("a", 2, "changed"), segment("d", 0)] });
      expect(again.kind === "appended" && again.accepted.map((s) => s.id)).toEqual(["d"]);
      expect(again).toMatchObject({ duplicates: 1, state: { segmentCount: 4 } });
      const { segments, state } = await store.readSegments(id, undefined, 10);
      expect(segments.map((s) => s.id)).toEqual(["d", "c", "a", "b"]);
      expect(segments.find((s) => s.id === "a")?.text).toBe("text of a");
      expect(state).toEqual({ segmentCount: 4, final: false, deletedAtMs: null });
    });

    it("pages after a segment, and a page of none", async () => {
      const store = make();
      const id = crypto.randomUUID();
      await append(store, id, { segments: [segment("a", 1), segment("b", 2), segment("c", 3)] });
      expect((await store.readSegments(id, { startedAtMs: 1, id: "a" }, 1)).segments.map((s) => s.id)).toEqual(["b"]);
      expect((await store.readSegments(id, { startedAtMs: 3, id: "c" }, 5)).segments).toEqual([]);
      expect((await store.readSegments(id, undefined, 0)).segments).toEqual([]);
      expect(await store.readState(crypto.randomUUID())).toEqual({ segmentCount: 0, final: false, deletedAtMs: null });
    });

    it("refuses a post that would pass the limit whole, and stores nothing of it", async () => {
      const store = make();
      const id = crypto.randomUUID();
      await append(store, id, { segments: [segment("a", 1), segment("b", 2), segment("c", 3), segment("d", 4)] });
      expect(await append(store, id, { segments: [segment("e", 5), segment("f", 6)] })).toMatchObject({
        kind: "limit",
        state: { segmentCount: 4 },
      });
      expect((await store.readState(id)).segmentCount).toBe(4);
      // Duplicates do not count against it.
      expect(await append(store, id, { segments: [segment("a", 1), segment("e", 5)] })).toMatchObject({
        kind: "appended",
        state: { segmentCount: 5 },
      });
    });

    it("after final, or past its close, refuses new segments but takes a retry of stored ones", async () => {
      const store = make();
      const final = crypto.randomUUID();
      await append(store, final, { segments: [segment("a", 1)], final: true });
      expect(await append(store, final, { segments: [segment("b", 2)] })).toMatchObject({ kind: "closed", reason: "final" });
      expect(await append(store, final, { segments: [segment("a", 1)], final: true })).toMatchObject({ kind: "appended", duplicates: 1 });
      const late = crypto.randomUUID();
      await append(store, late, { segments: [segment("a", 1)] });
      expect(await append(store, late, { segments: [segment("b", 2)], closesAtMs: NOW - 1 })).toMatchObject({
        kind: "closed",
        reason: "ended",
      });
      expect(await append(store, late, { segments: [segment("b", 2)], closesAtMs: NOW })).toMatchObject({ kind: "appended" });
    });

    it("deletes every segment, keeps the deletion, refuses everything after it, and deletes once", async () => {
      const store = make();
      const id = crypto.randomUUID();
      await append(store, id, { segments: [segment("a", 1)], final: true });
      const deleted = await store.deleteTranscript(id, NOW + 5, NOW + 3_600_000);
      expect(deleted).toEqual({ segmentCount: 0, final: true, deletedAtMs: NOW + 5 });
      expect(await store.readSegments(id, undefined, 10)).toEqual({ state: deleted, segments: [] });
      expect(await store.readSegments(id, { startedAtMs: 1, id: "a" }, 10)).toEqual({ state: deleted, segments: [] });
      expect(await append(store, id, { segments: [segment("a", 1)] })).toMatchObject({ kind: "closed", reason: "deleted" });
      expect(await store.deleteTranscript(id, NOW + 99, NOW + 3_600_000)).toEqual(deleted);
      // A transcript deleted before anything was posted is deleted too.
      const empty = crypto.randomUUID();
      expect((await store.deleteTranscript(empty, NOW, NOW + 3_600_000)).deletedAtMs).toBe(NOW);
      expect(await append(store, empty, { final: true })).toMatchObject({ kind: "closed", reason: "deleted" });
    });
  });
}
