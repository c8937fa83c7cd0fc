import { describe, expect, it } from "vitest";
import type { RecordingStorage } from "../domain/recordings/ports.js";
import { MemoryRecordingExpiries } from "../store/memory/recording-expiries.js";
import { RecordingRetention } from "./recording-retention.js";

function storage(failing = new Set<string>()) {
  const deleted: string[] = [];
  const store: Pick<RecordingStorage, "delete"> = {
    delete: async (key) => {
      if (failing.has(key)) throw new Error("the store is down");
      deleted.push(key);
    },
  };
  return { deleted, store: store as RecordingStorage };
}

describe("the recordings' retention", () => {
  it("deletes the files due, oldest first and in batches, and forgets them only once deleted", async () => {
    const expiries = new MemoryRecordingExpiries();
    for (let i = 0; i < 5; i++) await expiries.add(`s${i}.ogg`, 1_000 + i);
    await expiries.add("later.ogg", 9_000);
    const { deleted, store } = storage();
    const retention = new RecordingRetention(expiries, store, { intervalMs: 60_000, batch: 2, now: () => 5_000 });
    expect(await retention.pass()).toBe(5);
    expect(deleted).toEqual(["s0.ogg", "s1.ogg", "s2.ogg", "s3.ogg", "s4.ogg"]);
    expect(await expiries.due(10_000, 10)).toEqual(["later.ogg"]);
  });

  it("leaves a file the store could not delete for the next pass", async () => {
    const expiries = new MemoryRecordingExpiries();
    await expiries.add("a.ogg", 1);
    const failing = new Set(["a.ogg"]);
    const { deleted, store } = storage(failing);
    const retention = new RecordingRetention(expiries, store, { intervalMs: 60_000, now: () => 5 });
    await expect(retention.pass()).rejects.toThrow("the store is down");
    expect(await expiries.due(5, 10)).toEqual(["a.ogg"]);
    failing.clear();
    expect(await retention.pass()).toBe(1);
    expect(deleted).toEqual(["a.ogg"]);
  });
});
