/**
 * LiveKit's API gone (its port closed, connections refused) under a running server process on Redis:
 * create and end answer 503 ApiErrors with Retry-After, keep nothing (no session, no idempotency record,
 * the ended session unchanged), and the very same requests succeed once LiveKit is back.
 */
import { performance } from "node:perf_hooks";
import { FakeLiveKit, type RedisServer, startRedis } from "@dhs/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useServiceDatabase } from "../support/database.js";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";
import { createSession, DEV_KEY, getSession, ms, report } from "./support.js";

let redis: RedisServer;
let livekit: FakeLiveKit;
let url: string;

const database = useServiceDatabase();
beforeAll(async () => {
  redis = await startRedis();
  livekit = await new FakeLiveKit().start();
  url = (await startServerProcess({ REDIS_URL: redis.url, DATABASE_URL: database.url(), LIVEKIT_API_URL: livekit.url }).listening).url;
});
afterAll(async () => {
  killServerProcesses();
  await redis?.stop();
  await livekit?.stop();
});

const endSession = (id: string) =>
  fetch(`${url}/v1/sessions/${id}/end`, { method: "POST", headers: { Authorization: `Bearer ${DEV_KEY}` } });

describe("when LiveKit's API is unreachable", () => {
  it("answers create and end 503, keeps nothing, and the same Idempotency-Key succeeds once LiveKit is back", async () => {
    const existing = await createSession(url, crypto.randomUUID());
    expect(existing.status).toBe(201);
    const session = (await existing.json()) as { id: string; status: string };
    const port = Number(new URL(livekit.url).port);
    await livekit.stop();
    const keysBefore = await redisKeys();

    const key = crypto.randomUUID();
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const sentAt = performance.now();
      const res = await createSession(url, key);
      latencies.push(performance.now() - sentAt);
      await expectUnavailable(res, /LiveKit/);
    }
    const end = await endSession(session.id);
    await expectUnavailable(end, /LiveKit/);

    // Nothing kept but the key's record of the session id it was creating (its CreateRoom may have
    // happened unseen): no session, no index, and the session that could not end is as it was.
    const added = (await redisKeys()).filter((k) => !keysBefore.includes(k));
    expect(added).toEqual([expect.stringMatching(new RegExp(`:idem:acct_dev:${key}$`))]);
    const list = (await (await fetch(`${url}/v1/sessions`, { headers: { Authorization: `Bearer ${DEV_KEY}` } })).json()) as {
      data: { id: string }[];
    };
    expect(list.data.map((s) => s.id)).toEqual([session.id]);
    expect(((await (await getSession(url, session.id)).json()) as { status: string }).status).toBe(session.status);

    await livekit.start(port);
    const retried = await createSession(url, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    const replayed = await createSession(url, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await replayed.json()).id).toBe((await retried.json()).id);
    const ended = await endSession(session.id);
    expect(ended.status).toBe(200);
    // Nobody joined it: ending a pending session cancels it.
    expect(await ended.json()).toMatchObject({ id: session.id, status: "cancelled" });

    report("LiveKit unreachable (connection refused)", {
      "creates answered 503": latencies.length,
      "worst 503 latency (ms)": ms(Math.max(...latencies)),
      "Redis keys added by the failed requests": added.length,
      "same key after LiveKit is back": "201, then replayed",
    });
  });
});

async function expectUnavailable(res: Response, detail: RegExp): Promise<void> {
  const body = (await res.json()) as { code: string; detail: string; request_id: string };
  expect({ status: res.status, code: body.code, retryAfter: res.headers.get("Retry-After") }).toEqual({
    status: 503,
    code: "service_unavailable",
    retryAfter: "1",
  });
  expect(body.detail).toMatch(detail);
  expect(body.request_id).toBe(res.headers.get("X-Request-ID"));
}

async function redisKeys(): Promise<string[]> {
  const client = new Redis(redis.url);
  try {
    // Rate-limiter counters change with every request; they are not what a failed create could leave.
    return (await client.keys("*")).filter((key) => !key.includes(":rl:")).sort();
  } finally {
    client.disconnect();
  }
}
