import { describe, expect, it } from "vitest";
import type { DigitalHumanRecord } from "../../domain/digital-humans/ports.js";
import { LastReadDigitalHumans } from "./last-read-digital-humans.js";

const record = (owner: string, id: string, name = "Maya") => ({ owner, id, name }) as unknown as DigitalHumanRecord;

function kept(capacity = 3, lifetimeMs = 1000) {
  let nowMs = 0;
  const store = new LastReadDigitalHumans({ lifetimeMs, capacity, now: () => nowMs });
  return { store, advance: (ms: number) => (nowMs += ms) };
}

describe("the digital humans a process last read", () => {
  it("gives back the last version remembered, per owner", () => {
    const { store } = kept();
    store.remember(record("acct_a", "dh1"));
    store.remember(record("acct_a", "dh1", "Maya II"));
    store.remember(record("acct_b", "dh2"));
    expect(store.recall("acct_a", "dh1")).toMatchObject({ name: "Maya II" });
    // One account's id is not another's digital human.
    expect(store.recall("acct_b", "dh1")).toBeUndefined();
    expect(store.recall("acct_a", "dh2")).toBeUndefined();
  });

  it("serves one no longer than its lifetime after it was last read", () => {
    const { store, advance } = kept(3, 1000);
    store.remember(record("acct_a", "dh1"));
    advance(1000);
    expect(store.recall("acct_a", "dh1")).toBeDefined();
    store.remember(record("acct_a", "dh1"));
    advance(1000);
    expect(store.recall("acct_a", "dh1")).toBeDefined();
    advance(1);
    expect(store.recall("acct_a", "dh1")).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it("never serves one forgotten (deleted, or found missing)", () => {
    const { store } = kept();
    store.remember(record("acct_a", "dh1"));
    store.forget("acct_a", "dh1");
    expect(store.recall("acct_a", "dh1")).toBeUndefined();
  });

  it("keeps at most its capacity, the least recently remembered going first", () => {
    const { store } = kept(2);
    store.remember(record("acct_a", "dh1"));
    store.remember(record("acct_a", "dh2"));
    // Read again: the most recent now, so dh2 is the oldest.
    store.remember(record("acct_a", "dh1"));
    store.remember(record("acct_a", "dh3"));
    expect(store.size).toBe(2);
    expect(store.recall("acct_a", "dh2")).toBeUndefined();
    expect(store.recall("acct_a", "dh1")).toBeDefined();
    expect(store.recall("acct_a", "dh3")).toBeDefined();
  });
});
