/**
 * With a Redis of this file's own, killed and started again: while it is down every answer that needs it
 * is a 503 ApiError with Retry-After (never a 500 or a hang), readiness fails, and the service recovers
 * by itself, with every session it confirmed still there.
 */

import { type RedisServer, startRedis } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectApiError, type Harness, startHarness, until } from "../support/harness.js";

let redis: RedisServer;
let h: Harness;

beforeAll(async () => {
  redis = await startRedis({ appendonly: true });
  h = await startHarness({ REDIS_URL: redis.url });
});
afterAll(async () => {
  await h?.close();
  await redis?.stop();
});

describe("when Redis goes down and comes back", () => {
  it("answers 503 service_unavailable while it is down and recovers without a restart", async () => {
    const before = await h.create({ participant_identity: "before-outage" });
    expect(before.status).toBe(201);
    const confirmed = await before.json();
    await redis.kill();

    const create = await h.create({ participant_identity: "during-outage" });
    const error = await expectApiError(create, 503, "service_unavailable");
    expect(error.detail).toMatch(/session store/);
    expect(create.headers.get("Retry-After")).toBe("1");
    h.livekit.reset();

    await expectApiError(await h.request("GET", `/v1/sessions/${confirmed.id}`), 503, "service_unavailable");
    await expectApiError(await h.request("GET", "/readyz", { key: null }), 503, "service_unavailable");
    expect((await h.request("GET", "/healthz", { key: null })).status).toBe(200);
    // Nothing reached LiveKit for a create that could not claim its key.
    expect(h.livekit.callsOf("CreateRoom")).toHaveLength(0);

    await redis.start();
    await until(async () => (await h.request("GET", "/readyz", { key: null })).status === 200);
    expect((await h.create({ participant_identity: "after-outage" })).status).toBe(201);
    const again = await h.request("GET", `/v1/sessions/${confirmed.id}`);
    expect(again.status).toBe(200);
    expect((await again.json()).id).toBe(confirmed.id);
  });
});
