/**
 * POST /livekit/webhook is answered ahead of the Express app (http/livekit-webhook.ts): the same answers
 * the API gives (its security headers, a request id, ApiError bodies), its own bounded body, its own log
 * line (quiet for what changed nothing) and metrics; every other method and path is still the API's.
 */
import { describe, expect, it } from "vitest";
import { expectApiError, newSession, roomEvent, signWebhook, useHarness } from "../support/harness.js";

const h = useHarness({ LOG_LEVEL: "debug" });

type Line = { request_id?: string; level?: number; route?: string; res?: { status: number }; reason?: string; msg?: string };
const lineOf = (requestId: string | null) =>
  h.logs.map((l) => JSON.parse(l) as Line).find((l) => l.request_id === requestId && l.msg === "request");

describe("POST /livekit/webhook, ahead of the API", () => {
  it("answers with the API's security headers and its own request id", async () => {
    const s = await newSession(h);
    const [hook, probe] = [await h.webhook(roomEvent("room_started", s)), await fetch(`${h.url}/healthz`)];
    expect(hook.status).toBe(200);
    expect(hook.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await hook.json()).toEqual({ status: "ok" });
    expect(hook.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    for (const name of [
      "content-security-policy",
      "strict-transport-security",
      "x-content-type-options",
      "x-frame-options",
      "referrer-policy",
    ]) {
      expect(hook.headers.get(name), name).toBe(probe.headers.get(name));
      expect(hook.headers.get(name), name).toBeTruthy();
    }
    expect(hook.headers.get("x-powered-by")).toBeNull();
  });

  it("refuses a signed body over 64 KiB with 413 payload_too_large, and changes nothing", async () => {
    const s = await newSession(h);
    const body = JSON.stringify({ ...roomEvent("participant_joined", s, { identity: s.identity }), padding: "x".repeat(70_000) });
    const res = await h.webhook({}, { authorization: await signWebhook(body), raw: body });
    await expectApiError(res, 413, "payload_too_large");
    expect((await h.session(s.id)).status).toBe("created");
  });

  it("logs a delivery that changed a session at info, its redelivery and a foreign room's at debug, each under its route", async () => {
    const s = await newSession(h);
    const joined = roomEvent("participant_joined", s, { identity: s.identity });
    const first = await h.webhook(joined);
    const again = await h.webhook(joined);
    const foreign = await h.webhook({ event: "room_started", id: "EV_other", room: { name: "someone-elses-room", sid: "RM_x" } });
    await expect.poll(() => lineOf(foreign.headers.get("x-request-id"))).toBeDefined();
    expect(lineOf(first.headers.get("x-request-id"))).toMatchObject({ level: 30, route: "/livekit/webhook", res: { status: 200 } });
    expect(lineOf(again.headers.get("x-request-id"))).toMatchObject({ level: 20, route: "/livekit/webhook", res: { status: 200 } });
    expect(lineOf(foreign.headers.get("x-request-id"))).toMatchObject({ level: 20, res: { status: 200 } });
    const metrics = await (await fetch(`${h.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^dhs_http_requests_total\{[^}]*route="\/livekit\/webhook"[^}]*\} [1-9]/m);
  });

  it("leaves other methods on its path, and other spellings of it, to the API: 404 not_found", async () => {
    const attempts: [string, string][] = [
      ["GET", "/livekit/webhook"],
      ["PUT", "/livekit/webhook"],
      ["POST", "/livekit/webhook/"],
      ["POST", "/LiveKit/webhook"],
    ];
    for (const [method, path] of attempts) {
      const res = await fetch(`${h.url}${path}`, { method });
      const error = await expectApiError(res, 404, "not_found");
      expect(error.request_id).toBe(res.headers.get("x-request-id"));
    }
  });
});
