/**
 * The api:cluster project runs the HTTP suite on a Redis Cluster; this proves it is one, and that the
 * key layout spreads one account over it: the service talks to several masters, a session shares its
 * shard's slot with its timers and the Idempotency-Key that created it (the scripts that write them
 * together need it), and one account's sessions, their keys and their memory, land on every master in
 * about equal shares.
 */
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyspace, shardOf } from "../../src/store/redis/keys.js";
import { type Harness, KEYS, startHarness } from "../support/harness.js";

let h: Harness;
let cluster: Cluster;
const PREFIX = `layout${crypto.randomUUID().slice(0, 6)}`;

beforeAll(async () => {
  // The spread test creates hundreds of sessions at once.
  h = await startHarness({ RATE_LIMIT_ENABLED: "false", REDIS_KEY_PREFIX: PREFIX });
  cluster = (h.composed.store as unknown as { redis: Cluster }).redis;
});
afterAll(async () => {
  await h?.close();
});

const slotOf = async (key: string) => Number(await cluster.cluster("KEYSLOT", key));

/** This harness's keys on each master, with the memory each takes. */
async function perMaster(): Promise<{ keys: number; bytes: number }[]> {
  const found = [];
  for (const master of cluster.nodes("master")) {
    let keys = 0;
    let bytes = 0;
    for (const key of await master.keys(`${PREFIX}:*`)) {
      keys++;
      bytes += Number(await master.memory("USAGE", key));
    }
    found.push({ keys, bytes });
  }
  return found;
}

describe("on a Redis Cluster", () => {
  it("keeps a session in one slot with its timers and the Idempotency-Key that created it, and an account's own keys in one", async () => {
    expect(cluster.isCluster).toBe(true);
    expect(cluster.nodes("master")).toHaveLength(3);
    const keys = keyspace(PREFIX);
    for (let i = 0; i < 5; i++) {
      for (const [key, account] of [
        [KEYS.a, "acct_a"],
        [KEYS.b, "acct_b"],
      ] as const) {
        const idempotencyKey = `layout-${i}`;
        const res = await h.create({}, { key, idempotencyKey });
        expect(res.status).toBe(201);
        const { id } = (await res.json()) as { id: string };
        const slot = await slotOf(keys.session(id));
        expect(await cluster.exists(keys.session(id))).toBe(1);
        expect(await slotOf(keys.idempotency(account, idempotencyKey))).toBe(slot);
        expect(await slotOf(keys.timers(shardOf(id)))).toBe(slot);
        expect(await cluster.zscore(keys.open(account), id)).not.toBeNull();
      }
    }
    for (const account of ["acct_a", "acct_b"]) {
      const own = new Set(await Promise.all([keys.open(account), keys.claims(account), keys.hookRoutes(account)].map(slotOf)));
      expect(own.size).toBe(1);
    }
  });

  it("spreads one account's sessions, open and ended, over the masters: keys and memory within a few points of a third each", async () => {
    const before = await perMaster();
    // Most of an account's sessions at any time are ended ones kept for their retention.
    const n = 1500;
    const ids: string[] = [];
    for (let i = 0; i < n; i += 20) {
      const batch = await Promise.all(Array.from({ length: Math.min(20, n - i) }, () => h.create({})));
      for (const res of batch) {
        expect(res.status).toBe(201);
        ids.push(((await res.json()) as { id: string }).id);
      }
    }
    const ended = ids.slice(0, (n * 4) / 5);
    for (let i = 0; i < ended.length; i += 20) {
      const batch = await Promise.all(ended.slice(i, i + 20).map((id) => h.request("POST", `/v1/sessions/${id}/end`)));
      for (const res of batch) expect(res.status).toBe(200);
    }
    const after = await perMaster();
    const added = after.map((m, i) => ({ keys: m.keys - (before[i]?.keys ?? 0), bytes: m.bytes - (before[i]?.bytes ?? 0) }));
    const total = { keys: added.reduce((a, m) => a + m.keys, 0), bytes: added.reduce((a, m) => a + m.bytes, 0) };
    expect(total.keys).toBeGreaterThanOrEqual(n);
    const share = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;
    console.log(
      `one account's ${n} sessions (${ended.length} ended) per master: keys ${added.map((m) => share(m.keys, total.keys)).join("/")}, ` +
        `memory ${added.map((m) => share(m.bytes, total.bytes)).join("/")}`,
    );
    for (const master of added) {
      // 32 shards on 3 masters hold 10 or 11 each (a third within 2 points), sessions fall in shards at
      // random (about 1 point at this size), and the account's own keys (its open sessions) add about 1.
      expect(Math.abs(master.keys / total.keys - 1 / 3)).toBeLessThan(0.08);
      expect(Math.abs(master.bytes / total.bytes - 1 / 3)).toBeLessThan(0.08);
    }
    // 2 700 requests and a MEMORY USAGE of every key: several times the suite's 20 s beside other files.
  }, 120_000);
});
