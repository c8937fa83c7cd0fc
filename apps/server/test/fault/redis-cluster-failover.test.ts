/**
 * A Redis Cluster master killed (SIGKILL) under steady create load: its replica takes over after the
 * cluster's node timeout (2 s here). Meanwhile creates whose account lives on that master answer 503
 * ApiErrors quickly (no 500, no hang); afterwards creates succeed again without restarting the server,
 * and every session answered 201 is readable: acknowledged writes reached the replica in time. (Redis
 * replication is asynchronous; a write acknowledged just before the crash could be lost, and this test
 * would show it as a confirmed session not found.)
 */
import { performance } from "node:perf_hooks";
import { FakeLiveKit, type RedisCluster, startRedisCluster } from "@dhs/testkit";
import keySlot from "cluster-key-slot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useServiceDatabase } from "../support/database.js";
import { type Sample, startLoad } from "../support/load.js";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";
import { createSession, getSession, ms, report, sleep } from "./support.js";

let cluster: RedisCluster;
let livekit: FakeLiveKit;
let url: string;

const database = useServiceDatabase();
beforeAll(async () => {
  cluster = await startRedisCluster();
  livekit = await new FakeLiveKit().start();
  const server = startServerProcess({
    REDIS_URL: cluster.url,
    DATABASE_URL: database.url(),
    REDIS_MODE: "cluster",
    LIVEKIT_API_URL: livekit.url,
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
  });
  url = (await server.listening).url;
}, 90_000);
afterAll(async () => {
  killServerProcesses();
  await cluster?.stop();
  await livekit?.stop();
});

describe("a Redis Cluster master killed under steady create load", () => {
  it("answers 503 quickly until its replica takes over, then creates again, losing no confirmed session", { timeout: 60_000 }, async () => {
    // The development key's account (acct_dev) lives in one slot: kill the master that serves it.
    const masterPort = await cluster.masterOfSlot(keySlot("acct_dev"));

    const load = startLoad((tag, signal) => createSession(url, tag, signal), { concurrency: 8, timeoutMs: 10_000 });
    await sleep(1000);
    const killedAt = performance.now();
    await cluster.killNode(masterPort);
    let recoveredAt: number | undefined;
    // Until creates succeed again (the replica promoted and the client's slot map refreshed), at most 20 s.
    while (performance.now() - killedAt < 20_000) {
      await sleep(200);
      const succeeded = load.samples.filter((s) => s.sentAt > killedAt + 100 && s.status === 201);
      if (succeeded.length > 20) {
        recoveredAt = (succeeded[0] as Sample).endedAt;
        break;
      }
    }
    await sleep(1000);
    const samples = await load.stop();

    expect(recoveredAt, "creates did not succeed again within 20 s of the kill").toBeDefined();
    expect(samples.filter((s) => s.status === undefined)).toEqual([]);
    expect(samples.filter((s) => s.status !== 201 && s.status !== 503)).toEqual([]);
    const unavailable = samples.filter((s) => s.status === 503);
    for (const s of unavailable)
      expect({ code: s.body?.code, retryAfter: s.headers?.get("Retry-After") }).toEqual({ code: "service_unavailable", retryAfter: "1" });
    const worst503 = unavailable.length ? Math.max(...unavailable.map((s) => s.endedAt - s.sentAt)) : 0;
    // Bounded, though above a single Redis's 1 s: a command to the dead master waits out its 500 ms
    // timeout, and ioredis retries once more after a cluster-level delay (seen: 625-732 ms).
    expect(worst503).toBeLessThan(2000);

    const confirmed = samples.filter((s) => s.status === 201).map((s) => s.body.id as string);
    let found = 0;
    for (const id of confirmed) if ((await getSession(url, id)).status === 200) found++;
    expect(found).toBe(confirmed.length);

    report("Redis Cluster master killed under load (3 masters, node timeout 2 s)", {
      "requests sent": samples.length,
      "answered 503": unavailable.length,
      "worst 503 latency (ms)": ms(worst503),
      "kill to creates succeeding again (ms)": ms((recoveredAt as number) - killedAt),
      "sessions confirmed 201": confirmed.length,
      "confirmed sessions found after": found,
    });
  });
});
