import { describe, expect, it } from "vitest";
import { FairSlots } from "./fair-slots.js";

describe("slots shared fairly between owners", () => {
  it("go at once while free, then to the owners in turn, each owner's own waiters in order", async () => {
    const slots = new FairSlots(2, 10);
    const got: string[] = [];
    const held = new Map<string, () => void>();
    const take = (name: string) =>
      slots.acquire(name.slice(0, 1))?.then((release) => {
        got.push(name);
        held.set(name, release);
      });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await Promise.all([take("a1"), take("a2")]);
    for (const name of ["a3", "a4", "a5", "b1", "b2", "c1"]) void take(name);
    expect(slots.waiting).toBe(6);
    held.get("a1")?.();
    held.get("a2")?.();
    held.get("a2")?.(); // a release given twice frees one slot
    await settle();
    expect(got).toEqual(["a1", "a2", "a3", "b1"]);
    held.get("a3")?.();
    held.get("b1")?.();
    await settle();
    // c had not had a turn, then a's: b's second waits for its own.
    expect(got).toEqual(["a1", "a2", "a3", "b1", "c1", "a4"]);
    expect(slots.waiting).toBe(2);
  });

  it("refuse an owner whose own queue is full, and only that owner", async () => {
    const slots = new FairSlots(1, 1);
    const first = await slots.acquire("a");
    expect(slots.acquire("a")).toBeDefined();
    expect(slots.acquire("a")).toBeUndefined();
    expect(slots.acquire("b")).toBeDefined();
    first?.();
  });
});
