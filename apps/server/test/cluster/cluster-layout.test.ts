/**
 * The api:cluster project runs the HTTP suite on a Redis Cluster; this proves it is one: the service
 * talks to several masters, each account's keys (session, index, idempotency record) share a slot,
 * which the Lua scripts that write them together need, and the session timers, which are no account's,
 * spread over every master in about equal shares.
 */
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, KEYS, startHarness } from "../support/harness.js";

let h: Harness;
let cluster: Cluster;

beforeAll(async () => {
  // The timers test creates hundreds of sessions at once.
  h = await startHarness({ RATE_LIMIT_ENABLED: "false" });
  cluster = (h.composed.store as unknown as { redis: Cluster }).redis;
});
afterAll(async () => {
  await h?.close();
});

describe("on a Redis Cluster", () => {
  it("spreads accounts over several masters and keeps each account's keys in one slot", async () => {
    expect(cluster.isCluster).toBe(true);
    expect(cluster.nodes("master")).toHaveLength(3);

    const created = [];
    for (let i = 0; i < 5; i++) {
      for (const key of [KEYS.a, KEYS.b]) {
        const res = await h.create({}, { key, idempotencyKey: `layout-${i}` });
        expect(res.status).toBe(201);
        created.push(await res.json());
      }
    }

    // Every key the service wrote, grouped by the master that holds it.
    const byMaster = new Map<string, string[]>();
    for (const master of cluster.nodes("master")) {
      const keys = await master.keys("*");
      byMaster.set(`${master.options.host}:${master.options.port}`, keys);
    }
    const slotOf = async (key: string) => Number(await cluster.cluster("KEYSLOT", key));
    const accountSlots = new Map<string, Set<number>>();
    for (const keys of byMaster.values()) {
      for (const key of keys) {
        const account = key.match(/\{(acct_[ab])\}/)?.[1];
        if (!account) continue;
        const slots = accountSlots.get(account) ?? new Set<number>();
        slots.add(await slotOf(key));
        accountSlots.set(account, slots);
      }
    }
    expect([...accountSlots.keys()].sort()).toEqual(["acct_a", "acct_b"]);
    for (const slots of accountSlots.values()) expect(slots.size).toBe(1);
    // Both accounts' sessions plus the timers live on more than one master.
    const mastersWithKeys = [...byMaster.values()].filter((keys) => keys.length > 0);
    expect(mastersWithKeys.length).toBeGreaterThan(1);
    expect(created).toHaveLength(10);
  });

  it("spreads one account's session timers over the masters in about equal shares", async () => {
    const n = 300;
    for (let i = 0; i < n; i += 20) {
      const batch = await Promise.all(Array.from({ length: Math.min(20, n - i) }, () => h.create({})));
      for (const res of batch) expect(res.status).toBe(201);
    }
    const perMaster: number[] = [];
    for (const master of cluster.nodes("master")) {
      let members = 0;
      for (const key of await master.keys("*:timers:*")) members += await master.zcard(key);
      perMaster.push(members);
    }
    const total = perMaster.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(n);
    // A third each, within a few points (about 2 points is one standard deviation at this size).
    for (const members of perMaster) expect(Math.abs(members / total - 1 / 3)).toBeLessThan(0.08);
  });
});
