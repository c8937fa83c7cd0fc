/**
 * The port contract of RecordingExpiries (domain/recordings/ports.ts), run against every adapter: when
 * ready recordings' files are to be deleted, read back due and oldest first, moved only sooner.
 */
import { describe, expect, it } from "vitest";
import type { RecordingExpiries } from "../../src/domain/recordings/ports.js";

export function recordingExpiriesContract(adapter: string, make: () => Promise<RecordingExpiries>): void {
  describe(`RecordingExpiries (${adapter})`, () => {
    it("answers the keys due by a time, oldest first, at most as many as asked", async () => {
      const expiries = await make();
      await expiries.add("b.ogg", 2_000);
      await expiries.add("a.ogg", 1_000);
      await expiries.add("c.ogg", 3_000);
      expect(await expiries.due(999, 10)).toEqual([]);
      expect(await expiries.due(2_000, 10)).toEqual(["a.ogg", "b.ogg"]);
      expect(await expiries.due(5_000, 2)).toEqual(["a.ogg", "b.ogg"]);
    });

    it("moves a key only to a sooner time when it is added again: an erased file goes before its retention ends", async () => {
      const expiries = await make();
      await expiries.add("a.ogg", 4_000);
      await expiries.add("a.ogg", 1_000);
      expect(await expiries.due(900, 10)).toEqual([]);
      expect(await expiries.due(1_000, 10)).toEqual(["a.ogg"]);
      await expiries.add("a.ogg", 9_000);
      expect(await expiries.due(1_000, 10)).toEqual(["a.ogg"]);
    });

    it("forgets the keys removed, and nothing else", async () => {
      const expiries = await make();
      await expiries.add("a.ogg", 1);
      await expiries.add("b.ogg", 2);
      await expiries.remove(["a.ogg", "unknown.ogg"]);
      await expiries.remove([]);
      expect(await expiries.due(10, 10)).toEqual(["b.ogg"]);
    });
  });
}
