import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "./session-store.js";

describe("MemorySessionStore idempotency records", () => {
  it("lets a lock expire after its TTL, like Redis's PX", async () => {
    let now = 1_000;
    const store = new MemorySessionStore(() => now);
    expect(await store.beginCreate("a", "k", "f", 500, 100, "s-new")).toMatchObject({ kind: "acquired" });
    expect(await store.beginCreate("a", "k", "f", 500, 100, "s-new")).toEqual({ kind: "in_progress" });
    expect(await store.beginCreate("a", "k", "other", 500, 100, "s-new")).toEqual({ kind: "reused" });
    now += 500;
    expect(await store.beginCreate("a", "k", "f", 500, 100, "s-new")).toMatchObject({ kind: "acquired" });
    await store.close();
  });

  it("counts a create in flight as open until its lock expires or it is released", async () => {
    let now = 0;
    const store = new MemorySessionStore(() => now);
    const first = await store.beginCreate("a", "k1", "f", 100, 2, "s-new");
    await store.beginCreate("a", "k2", "f", 100, 2, "s-new");
    expect(await store.beginCreate("a", "k3", "f", 100, 2, "s-new")).toEqual({ kind: "limit", open: 2 });
    if (first.kind !== "acquired") throw new Error("expected an acquisition");
    await store.abandonCreate("a", "k1", "f", first.lock, first.sessionId, 1000);
    expect(await store.beginCreate("a", "k3", "f", 100, 2, "s-new")).toMatchObject({ kind: "acquired" });
    now = 200;
    expect(await store.openSessions("a")).toBe(0);
    await store.close();
  });

  it("keeps the session id of a failed create for a retry with the same body, for as long as it is told", async () => {
    let now = 0;
    const store = new MemorySessionStore(() => now);
    const first = await store.beginCreate("a", "k", "f", 100, 100, "s-1");
    if (first.kind !== "acquired") throw new Error("expected an acquisition");
    await store.abandonCreate("a", "k", "f", first.lock, "s-1", 1000);
    expect(await store.beginCreate("a", "k", "f", 100, 100, "s-2")).toMatchObject({ kind: "acquired", sessionId: "s-1" });
    now = 150;
    // Another body with the key a create failed under: a new session, as if nothing were recorded.
    expect(await store.beginCreate("a", "k", "other", 100, 100, "s-3")).toMatchObject({ kind: "acquired", sessionId: "s-3" });
    now = 2000;
    expect(await store.beginCreate("a", "k2", "f", 100, 100, "s-4")).toMatchObject({ kind: "acquired", sessionId: "s-4" });
    await store.close();
  });

  it("does not let a stale lock holder complete or release a key another request holds", async () => {
    let now = 0;
    const store = new MemorySessionStore(() => now);
    const first = await store.beginCreate("a", "k", "f", 100, 100, "s-new");
    now = 200;
    const second = await store.beginCreate("a", "k", "f", 100, 100, "s-new");
    if (first.kind !== "acquired" || second.kind !== "acquired") throw new Error("expected two acquisitions");
    await store.abandonCreate("a", "k", "f", first.lock, first.sessionId, 1000);
    expect(await store.beginCreate("a", "k", "f", 100, 100, "s-new")).toEqual({ kind: "in_progress" });
    await store.close();
  });
});

describe("MemorySessionStore ending marks and webhook ids", () => {
  it("are dropped by the store's sweep once expired, so a long-running development process does not keep every one", async () => {
    let now = 10_000;
    const store = new MemorySessionStore(() => now);
    const sizes = () => {
      const maps = store as unknown as { ending: Map<string, number>; events: Map<string, number> };
      return [maps.ending.size, maps.events.size];
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
