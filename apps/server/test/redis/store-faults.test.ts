/**
 * A record the service cannot read, or a command Redis refuses, is a fault to fix, not an outage that
 * passes: the request is answered 500 internal_error (no Retry-After), logged at error level with the
 * cause, and counted, while Redis being unreachable stays 503 (redis-outage.test.ts).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { keyspace } from "../../src/store/redis/keys.js";
import { expectApiError, type Harness, startHarness } from "../support/harness.js";

const PREFIX = `faults${crypto.randomUUID().slice(0, 6)}`;
let h: Harness;
let redis: Redis;
beforeAll(async () => {
  h = await startHarness({ REDIS_KEY_PREFIX: PREFIX });
  redis = new Redis(inject("redisUrl"));
});
afterAll(async () => {
  redis.disconnect();
  await h.close();
});

describe("a session record that cannot be decoded", () => {
  it("answers getSession 500 internal_error, logs the cause at error level and counts it", async () => {
    const session = await (await h.create({})).json();
    await redis.set(keyspace(PREFIX).session(session.id), "{not json");
    const res = await h.request("GET", `/v1/sessions/${session.id}`);
    const error = await expectApiError(res, 500, "internal_error");
    expect(res.headers.get("Retry-After")).toBeNull();
    const lines = h.logs
      .map((line) => JSON.parse(line))
      .filter((line) => line.request_id === error.request_id && line.msg === "dependency fault");
    expect(lines).toEqual([expect.objectContaining({ level: 50, dependency: "store", cause: expect.stringMatching(/^Redis: .*JSON/) })]);
    const metrics = await (await fetch(`${h.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^dhs_dependency_faults_total\{dependency="store"\} [1-9]/m);
  });
});
