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
    const sizes = () => [store.state.ending.size, store.state.livekitEvents.size];
    const remember = async (sessionId: string, eventId: string) => {
      await store.markEnding("a", sessionId, 60_000);
      await store.rememberEvent(sessionId, eventId, 60_000);
    };
    for (let i = 0; i < 50; i++) await remember(`s${i}`, `EV_${i}`);
    expect(sizes()).toEqual([50, 50]);
    now += 60_001;
    await remember("late", "EV_late");
    // What the store's one-minute sweep runs.
    store.state.dropExpired();
    expect(sizes()).toEqual([1, 1]);
    await store.close();
  });
});
