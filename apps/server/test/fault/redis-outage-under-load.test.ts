/**
 * Redis killed (SIGKILL) under steady create load and started again on the same port with its
 * append-only file: every answer while it is down is a 503 ApiError with Retry-After, within a second;
 * none is a 500 or a hang; creates succeed again within 3 s without restarting the server; and every
 * session that was answered 201 is still there afterwards. The same holds when Redis stalls (SIGSTOP:
 * connections stay open, nothing answers), where only the command timeout can end a request.
 */
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeLiveKit } from "../support/fake-livekit.js";
import { type Sample, startLoad } from "../support/load.js";
import { type RedisServer, startRedis } from "../support/redis-server.js";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";
import { createSession, getSession, ms, report } from "./support.js";

let redis: RedisServer;
let livekit: FakeLiveKit;
let url: string;

beforeAll(async () => {
  redis = await startRedis({ appendonly: true });
  livekit = await new FakeLiveKit().start();
  livekit.delayMs = 5;
  const server = startServerProcess({
    REDIS_URL: redis.url,
    LIVEKIT_API_URL: livekit.url,
    // The limiter stays on (it reads Redis on every request too) but never refuses this load.
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
  });
  url = (await server.listening).url;
});
afterAll(async () => {
  killServerProcesses();
  await redis?.stop();
  await livekit?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Redis killed and restarted under steady create load", () => {
  it("answers 503 with Retry-After within 1 s while it is down, recovers within 3 s, and loses no confirmed session", async () => {
    const load = startLoad((tag, signal) => createSession(url, tag, signal), { concurrency: 8, timeoutMs: 5000 });
    await sleep(1500);
    const killedAt = performance.now();
    await redis.kill();
    await sleep(2000);
    const restartAt = performance.now();
    await redis.start(); // resolves once it accepts connections again
    const upAt = performance.now();
    await sleep(3500);
    const samples = await load.stop();

    // Nothing hung and nothing failed below HTTP: every request got an answer.
    expect(samples.filter((s) => s.status === undefined)).toEqual([]);
    // No 500s, and only 201 or 503 at all.
    const byStatus = countBy(samples, (s) => String(s.status));
    expect(Object.keys(byStatus).sort()).toEqual(["201", "503"]);

    // Every request sent while Redis was down is a 503 ApiError with Retry-After, answered within 1 s.
    const duringOutage = samples.filter((s) => s.sentAt >= killedAt && s.sentAt < restartAt);
    expect(duringOutage.length).toBeGreaterThan(100);
    for (const s of duringOutage) expectUnavailable(s);
    const unavailable = samples.filter((s) => s.status === 503);
    for (const s of unavailable) expectUnavailable(s);
    const worst503 = Math.max(...unavailable.map((s) => s.endedAt - s.sentAt));
    expect(worst503).toBeLessThan(1000);

    // Recovery: the first create answered 201 after Redis came back, and nothing but 201 from then on.
    const firstSuccess = samples.filter((s) => s.status === 201 && s.sentAt >= restartAt).sort((a, b) => a.endedAt - b.endedAt)[0];
    expect(firstSuccess).toBeDefined();
    const recoveryMs = (firstSuccess as Sample).endedAt - upAt;
    expect(recoveryMs).toBeLessThan(3000);
    const afterRecovery = samples.filter((s) => s.sentAt > (firstSuccess as Sample).endedAt);
    expect(afterRecovery.filter((s) => s.status !== 201)).toEqual([]);

    // Every session confirmed with a 201, before, around or after the outage, is readable.
    const confirmed = samples.filter((s) => s.status === 201).map((s) => s.body.id as string);
    let found = 0;
    for (const id of confirmed) if ((await getSession(url, id)).status === 200) found++;
    expect(found).toBe(confirmed.length);

    report("Redis outage under load (8 concurrent creators)", {
      "requests sent": samples.length,
      "sent while Redis was down": duringOutage.length,
      "answered 503": unavailable.length,
      "worst 503 latency (ms)": ms(worst503),
      "median 503 latency (ms)": ms(median(unavailable.map((s) => s.endedAt - s.sentAt))),
      "Redis down for (ms)": ms(upAt - killedAt),
      "recovery after Redis is up (ms)": ms(recoveryMs),
      "sessions confirmed 201": confirmed.length,
      "confirmed sessions found after": found,
      "500s or hangs": 0,
    });
  });
});

describe("Redis stalled (SIGSTOP) under steady create load", () => {
  it("answers 503 within 1 s while it does not answer and recovers as soon as it does", async () => {
    const load = startLoad((tag, signal) => createSession(url, tag, signal), { concurrency: 8, timeoutMs: 5000 });
    await sleep(1000);
    const stalledAt = performance.now();
    redis.pause();
    await sleep(2000);
    const resumedAt = performance.now();
    redis.resume();
    await sleep(2000);
    const samples = await load.stop();

    expect(samples.filter((s) => s.status === undefined)).toEqual([]);
    expect(samples.filter((s) => s.status !== 201 && s.status !== 503)).toEqual([]);
    const duringStall = samples.filter((s) => s.sentAt >= stalledAt + 50 && s.sentAt < resumedAt - 600);
    expect(duringStall.length).toBeGreaterThan(0);
    for (const s of duringStall) expectUnavailable(s);
    const unavailable = samples.filter((s) => s.status === 503);
    for (const s of unavailable) expectUnavailable(s);
    const worst503 = Math.max(...unavailable.map((s) => s.endedAt - s.sentAt));
    expect(worst503).toBeLessThan(1000);
    const firstSuccess = samples.filter((s) => s.status === 201 && s.sentAt >= resumedAt).sort((a, b) => a.endedAt - b.endedAt)[0];
    expect(firstSuccess).toBeDefined();
    const recoveryMs = (firstSuccess as Sample).endedAt - resumedAt;
    expect(recoveryMs).toBeLessThan(3000);

    const confirmed = samples.filter((s) => s.status === 201).map((s) => s.body.id as string);
    let found = 0;
    for (const id of confirmed) if ((await getSession(url, id)).status === 200) found++;
    expect(found).toBe(confirmed.length);

    report("Redis stalled under load (8 concurrent creators, REDIS_COMMAND_TIMEOUT_MS=500)", {
      "requests sent": samples.length,
      "sent while Redis was stalled": duringStall.length,
      "answered 503": unavailable.length,
      "worst 503 latency (ms)": ms(worst503),
      "median 503 latency (ms)": ms(median(unavailable.map((s) => s.endedAt - s.sentAt))),
      "recovery after SIGCONT (ms)": ms(recoveryMs),
      "sessions confirmed 201": confirmed.length,
      "confirmed sessions found after": found,
    });
  });
});

function expectUnavailable(s: Sample): void {
  expect({ status: s.status, code: s.body?.code, retryAfter: s.headers?.get("Retry-After") }).toEqual({ status: 503, code: "service_unavailable", retryAfter: "1" });
  expect(s.body.request_id).toBe(s.headers?.get("X-Request-ID"));
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
