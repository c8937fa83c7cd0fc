import { describe, expect, it } from "vitest";
import { sessionStoreContract } from "../../../test/contract/session-store.contract.js";
import { MemorySessionStore } from "./session-store.js";

sessionStoreContract("memory", async () => {
  const store = new MemorySessionStore();
  return { store, close: () => store.close() };
});

describe("MemorySessionStore ending marks and LiveKit event ids", () => {
  it("are dropped by the store's sweep once expired, so a long-running development process does not keep every one", async () => {
    let now = 10_000;
    const store = new MemorySessionStore(() => now);
    const sizes = () => {
      const maps = store as unknown as { ending: Map<string, number>; livekitEvents: Map<string, number> };
      return [maps.ending.size, maps.livekitEvents.size];
    };
    for (let i = 0; i < 50; i++) {
      await store.markEnding("a", `s${i}`, 60_000);
      await store.markEventSeen(`EV_${i}`, 60_000);
    }
    expect(sizes()).toEqual([50, 50]);
    now += 60_001;
    await store.markEnding("a", "late", 60_000);
    await store.markEventSeen("EV_late", 60_000);
    // What the store's one-minute sweep runs.
    (store as unknown as { dropExpired(): void }).dropExpired();
    expect(sizes()).toEqual([1, 1]);
    expect(await store.isEnding("a", "late")).toBe(true);
    expect(await store.markEventSeen("EV_late", 60_000)).toBe(false);
    await store.close();
  });
});
