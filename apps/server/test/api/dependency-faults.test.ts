/**
 * A dependency that answers wrongly is not an outage that passes: LiveKit refusing this service's
 * credentials (a wrong LIVEKIT_API_KEY or LIVEKIT_API_SECRET) is answered 500 internal_error without
 * Retry-After, so clients stop retrying, and is logged at error level naming the variables and counted;
 * LiveKit that cannot be reached stays 503 with Retry-After.
 */
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, useHarness } from "../support/harness.js";

const h = useHarness();

function faultLines(requestId: string | null): { level: number; msg: string; dependency?: string; cause?: string }[] {
  return h.logs.map((line) => JSON.parse(line)).filter((line) => line.request_id === requestId && line.msg === "dependency fault");
}

async function faults(): Promise<number> {
  const text = await (await fetch(`${h.metricsUrl}/metrics`)).text();
  return Number(text.match(/^dhs_dependency_faults_total\{dependency="livekit"\} (\d+)/m)?.[1] ?? 0);
}

describe("LiveKit refusing the service's credentials", () => {
  it("answers a create 500 internal_error without Retry-After, logs the cause at error level and counts it; the key stays usable", async () => {
    const before = await faults();
    h.livekit.mode = "refuse";
    const key = crypto.randomUUID();
    const answer = await h.client().createSession({}, { idempotencyKey: key });
    const error = await expectApiError(answer, 500, "internal_error");
    expect(answer.response.headers.get("Retry-After")).toBeNull();
    expect(faultLines(error.request_id)).toEqual([
      expect.objectContaining({ level: 50, dependency: "livekit", cause: expect.stringMatching(/LIVEKIT_API_KEY and LIVEKIT_API_SECRET/) }),
    ]);
    expect(await faults()).toBe(before + 1);
    // Nothing was recorded for the key: once the credentials are fixed, the same create succeeds.
    h.livekit.mode = "ok";
    expect((await h.client().createSession({}, { idempotencyKey: key })).response.status).toBe(201);
  });

  it("answers an end 500 internal_error and leaves the session as it was", async () => {
    const session = expectData(await h.client().createSession({}), 201);
    h.livekit.mode = "refuse";
    await expectApiError(await h.client().endSession(session.id), 500, "internal_error");
    h.livekit.mode = "ok";
    expect((await h.session(session.id)).status).toBe("created");
  });
});

describe("LiveKit that cannot be reached", () => {
  it("is still an outage: 503 service_unavailable with Retry-After", async () => {
    h.livekit.mode = "fail";
    const answer = await h.client().createSession({});
    await expectApiError(answer, 503, "service_unavailable");
    expect(answer.response.headers.get("Retry-After")).toBe("1");
  });
});
