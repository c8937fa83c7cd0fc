/**
 * Redis killed (SIGKILL) under steady create load and started again on the same port with its
 * append-only file: every answer while it is down is a 503 ApiError with Retry-After, within a second;
 * none is a 500 or a hang; creates succeed again within 3 s without restarting the server; and every
 * session that was answered 201 is still there afterwards. The same holds when Redis stalls (SIGSTOP:
 * connections stay open, nothing answers), where only the command timeout can end a request.
 */
import { performance } from "node:perf_hooks";
import { FakeLiveKit, type RedisServer, startRedis } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useServiceDatabase } from "../support/database.js";
import { type Sample, startLoad } from "../support/load.js";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";
import { createSession, getSession, ms, report, sleep } from "./support.js";

let redis: RedisServer;
let livekit: FakeLiveKit;
let url: string;

const database = useServiceDatabase();
beforeAll(async () => {
  redis = await startRedis({ appendonly: true });
  livekit = await new FakeLiveKit().start();
  livekit.delayMs = 5;
  const server = startServerProcess({
    REDIS_URL: redis.url,
    DATABASE_URL: database.url(),
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

    const outage = judgeOutage(samples, { from: killedAt, to: restartAt, backAt: upAt });
    expect(outage.during).toBeGreaterThan(100);
    const { confirmed, found } = await confirmedSessionsFound(samples);

    report("Redis outage under load (8 concurrent creators)", {
      "requests sent": samples.length,
      "sent while Redis was down": outage.during,
      "answered 503": outage.unavailable,
      "worst 503 latency (ms)": ms(outage.worst503),
      "median 503 latency (ms)": ms(outage.median503),
      "Redis down for (ms)": ms(upAt - killedAt),
      "recovery after Redis is up (ms)": ms(outage.recoveryMs),
      "sessions confirmed 201": confirmed,
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

    // Requests sent in the stall's first 50 ms may have been answered before it; those sent in its last
    // 600 ms may be answered after it, within the command timeout.
    const outage = judgeOutage(samples, { from: stalledAt + 50, to: resumedAt - 600, backAt: resumedAt });
    expect(outage.during).toBeGreaterThan(0);
    const { confirmed, found } = await confirmedSessionsFound(samples);

    report("Redis stalled under load (8 concurrent creators, REDIS_COMMAND_TIMEOUT_MS=500)", {
      "requests sent": samples.length,
      "sent while Redis was stalled": outage.during,
      "answered 503": outage.unavailable,
      "worst 503 latency (ms)": ms(outage.worst503),
      "median 503 latency (ms)": ms(outage.median503),
      "recovery after SIGCONT (ms)": ms(outage.recoveryMs),
      "sessions confirmed 201": confirmed,
      "confirmed sessions found after": found,
    });
  });
});

/**
 * The promises of an outage from `from` to `to`, Redis answering again at `backAt`: every request got
 * an answer (nothing hung), only 201 or 503; every request sent in the window, and every 503 at all, a
 * 503 ApiError with Retry-After within 1 s; a 201 within 3 s of `backAt`, and only 201s after it.
 */
function judgeOutage(samples: Sample[], window: { from: number; to: number; backAt: number }) {
  expect(samples.filter((s) => s.status === undefined)).toEqual([]);
  expect(samples.filter((s) => s.status !== 201 && s.status !== 503)).toEqual([]);
  const during = samples.filter((s) => s.sentAt >= window.from && s.sentAt < window.to);
  for (const s of during) expectUnavailable(s);
  const unavailable = samples.filter((s) => s.status === 503);
  for (const s of unavailable) expectUnavailable(s);
  const latencies = unavailable.map((s) => s.endedAt - s.sentAt);
  const worst503 = Math.max(...latencies);
  expect(worst503).toBeLessThan(1000);
  const firstSuccess = samples.filter((s) => s.status === 201 && s.sentAt >= window.to).sort((a, b) => a.endedAt - b.endedAt)[0];
  expect(firstSuccess).toBeDefined();
  const recoveryMs = (firstSuccess as Sample).endedAt - window.backAt;
  expect(recoveryMs).toBeLessThan(3000);
  expect(samples.filter((s) => s.sentAt > (firstSuccess as Sample).endedAt && s.status !== 201)).toEqual([]);
  return { during: during.length, unavailable: unavailable.length, worst503, median503: median(latencies), recoveryMs };
}

/** Every session answered 201, before, around or after the outage, read back. */
async function confirmedSessionsFound(samples: Sample[]): Promise<{ confirmed: number; found: number }> {
  const confirmed = samples.filter((s) => s.status === 201).map((s) => s.body.id as string);
  let found = 0;
  for (const id of confirmed) if ((await getSession(url, id)).status === 200) found++;
  expect(found).toBe(confirmed.length);
  return { confirmed: confirmed.length, found };
}

function expectUnavailable(s: Sample): void {
  expect({ status: s.status, code: s.body?.code, retryAfter: s.headers?.get("Retry-After") }).toEqual({
    status: 503,
    code: "service_unavailable",
    retryAfter: "1",
  });
  expect(s.body.request_id).toBe(s.headers?.get("X-Request-ID"));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
