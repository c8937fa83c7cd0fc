import calculateSlot from "cluster-key-slot";
import { describe, expect, it } from "vitest";
import { idempotencyRecord, keyShardOf, keyspace, SHARDS, sessionIdIn, shardOf, shardTags } from "./keys.js";

describe("shards", () => {
  it("puts shard k in the k-th equal range of Redis Cluster's slots, so masters that own ranges share them evenly", () => {
    const keys = keyspace("dhs");
    for (let k = 0; k < SHARDS; k++) {
      const slot = calculateSlot(keys.timers(k));
      expect(slot).toBeGreaterThanOrEqual(Math.floor((k * 16_384) / SHARDS));
      expect(slot).toBeLessThan(Math.floor(((k + 1) * 16_384) / SHARDS));
      expect(calculateSlot(keys.hookAccountsDue(k))).toBe(slot);
      expect(calculateSlot(keys.hookDue("acct_a", k))).toBe(slot);
    }
    // Three masters splitting the slots as redis-cli --cluster create does: 10 or 11 shards each.
    const perMaster = [0, 0, 0];
    for (let k = 0; k < SHARDS; k++) {
      const master = Math.min(2, Math.floor(calculateSlot(keys.timers(k)) / 5461));
      perMaster[master] = (perMaster[master] ?? 0) + 1;
    }
    for (const count of perMaster) expect(count).toBeGreaterThanOrEqual(10);
    expect(new Set(shardTags(SHARDS)).size).toBe(SHARDS);
  });

  it("spreads random session ids over every shard about evenly", () => {
    const counts = new Array<number>(SHARDS).fill(0);
    const n = SHARDS * 500;
    for (let i = 0; i < n; i++) {
      const shard = shardOf(crypto.randomUUID());
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    // 500 expected per shard; a shard off by more than a third would be a broken hash, not chance.
    for (const count of counts) expect(Math.abs(count - 500)).toBeLessThan(167);
    expect(shardOf("acct_a")).toBe(shardOf("acct_a"));
  });

  it("keeps a session with its timers, and names a key's session in the key's own shard, so one script writes both", () => {
    const keys = keyspace("dhs");
    for (let i = 0; i < 50; i++) {
      const key = crypto.randomUUID();
      const sessionId = sessionIdIn(keyShardOf("acct_a", key));
      const slot = calculateSlot(keys.session(sessionId));
      expect(calculateSlot(keys.idempotency("acct_a", key))).toBe(slot);
      expect(calculateSlot(keys.timers(shardOf(sessionId)))).toBe(slot);
      expect(calculateSlot(keys.ending(sessionId))).toBe(slot);
    }
    let draws = 0;
    sessionIdIn(3, () => `id-${draws++}`);
    expect(shardOf(`id-${draws - 1}`)).toBe(3);
  });
});

describe("idempotencyRecord", () => {
  it.each([
    [
      "a pending record",
      idempotencyRecord.pending("fp_1", "lock-1", 1_700_000_000_000, "s-1"),
      { state: "p", fingerprint: "fp_1", sessionId: "s-1" },
    ],
    [
      "a done record",
      idempotencyRecord.done("fp_2", "3fa85f64-5717-4562-b3fc-2c963f66afa6"),
      { state: "d", fingerprint: "fp_2", sessionId: "3fa85f64-5717-4562-b3fc-2c963f66afa6" },
    ],
    ["a failed create's record", idempotencyRecord.abandoned("fp_3", "s-3"), { state: "a", fingerprint: "fp_3", sessionId: "s-3" }],
  ])("reads back %s as written", (_name, record, want) => {
    expect(idempotencyRecord.parse(record)).toEqual(want);
  });
});
