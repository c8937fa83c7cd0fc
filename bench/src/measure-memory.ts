/**
 * Redis memory per session over many creates through the service's create path (sessions, their
 * idempotency records, indexes and timers), then again once every one of them has ended (what retention
 * keeps), with what each kind of key holds and each master's share.
 */
import type { Redis } from "ioredis";
import { inParallel } from "./in-parallel.js";
import { STORED_PRINCIPAL, seed, seedService } from "./seed.js";
import { MEMORY_SESSIONS } from "./settings.js";
import type { Stack } from "./stack.js";

export interface MemoryFigures {
  /** used_memory per session, while they are open and once they have all ended. */
  bytes: number;
  endedBytes: number;
  keys: string;
  seedRate: number;
  /** MEMORY USAGE by kind of key, per session: open, then ended. */
  byKey: { open: Record<string, number>; ended: Record<string, number> };
  /** Each master's share of the memory the open sessions added, and of what the ended ones keep. */
  shares: number[];
  endedShares: number[];
}

/** What each key of the layout is, for the per-key table (the prefix is the bench's default, `dhs`). */
const KEY_KINDS: [string, RegExp][] = [
  ["session record (its shard)", /:session:/],
  ["the persona it was created with (its shard; kept while it can be open)", /:persona:/],
  ["Idempotency-Key record (its session's shard)", /:idem:/],
  ["open sessions (per account, bounded by its cap)", /:open$/],
  ["creates in flight (per account)", /:claims$/],
  ["index of ended sessions (per account, shard and day)", /:ended:/],
  ["timer sets (per shard)", /:timers:/],
  ["usage counters (per account and day)", /:usage:/],
  ["endSession's mark (expires after 60 s; removed before the ended column)", /:ending:/],
];

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(info.match(/used_memory:(\d+)/)?.[1]);
}

/** MEMORY USAGE of every key, summed by kind and divided by `per`. */
async function bytesByKey(nodes: readonly Redis[], per: number): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "COUNT", 1000);
      cursor = next;
      const sizes = await Promise.all(keys.map((key) => node.memory("USAGE", key)));
      keys.forEach((key, i) => {
        const kind = KEY_KINDS.find(([, pattern]) => pattern.test(key))?.[0] ?? "other";
        sums[kind] = (sums[kind] ?? 0) + Number(sizes[i] ?? 0);
      });
    } while (cursor !== "0");
  }
  return Object.fromEntries(Object.entries(sums).map(([kind, bytes]) => [kind, Math.round(bytes / per)]));
}

export async function memoryPerSession(stack: Stack): Promise<MemoryFigures> {
  const { nodes } = stack;
  const sum = async (read: (node: Redis) => Promise<number>) => (await Promise.all(nodes.map(read))).reduce((a, b) => a + b, 0);
  await Promise.all(nodes.map((node) => node.flushall()));
  const perNode = () => Promise.all(nodes.map(usedMemory));
  const beforeByNode = await perNode();
  const before = beforeByNode.reduce((a, b) => a + b, 0);
  const { rate: seedRate, ids } = await seed(stack, MEMORY_SESSIONS);
  const addedByNode = (await perNode()).map((bytes, i) => bytes - (beforeByNode[i] ?? 0));
  const afterCreates = before + addedByNode.reduce((a, b) => a + b, 0);
  const keys = ((await sum(async (node) => Number(await node.dbsize()))) / MEMORY_SESSIONS).toFixed(2);
  const open = await bytesByKey(nodes, MEMORY_SESSIONS);
  const { sessions, close } = await seedService(stack);
  await inParallel(ids.length, (i) => sessions.end(STORED_PRINCIPAL, ids[i] as string));
  await close();
  // endSession's marks expire after 60 s: what retention keeps is measured without them.
  await Promise.all(
    nodes.map(async (node) => {
      const marks = await node.keys("*:ending:*");
      if (marks.length > 0) await Promise.all(marks.map((key) => node.unlink(key)));
    }),
  );
  const endedByNode = (await perNode()).map((bytes, i) => bytes - (beforeByNode[i] ?? 0));
  const afterEnds = before + endedByNode.reduce((a, b) => a + b, 0);
  return {
    bytes: Math.round((afterCreates - before) / MEMORY_SESSIONS),
    endedBytes: Math.round((afterEnds - before) / MEMORY_SESSIONS),
    keys,
    seedRate,
    byKey: { open, ended: await bytesByKey(nodes, MEMORY_SESSIONS) },
    shares: addedByNode.map((bytes) => bytes / Math.max(1, afterCreates - before)),
    endedShares: endedByNode.map((bytes) => bytes / Math.max(1, afterEnds - before)),
  };
}
