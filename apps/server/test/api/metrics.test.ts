/**
 * Prometheus metrics on their own port (raw requests: it is no operation of the API), counting what the
 * API did: requests by route (sent raw, unmatched paths and missing keys included), sessions created and
 * ended (through the client), LiveKit's webhooks.
 */
import { describe, expect, it } from "vitest";
import { expectData, roomEvent, useHarness } from "../support/harness.js";
import { seriesValue } from "../support/metrics.js";

const h = useHarness();

async function metrics(): Promise<string> {
  const res = await fetch(`${h.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toMatch(/^text\/plain/);
  return res.text();
}

describe("GET /metrics", () => {
  it.each(["/metrics", "/METRICS", "/metrics/"])("is not served on the API port (%s answers 404)", async (path) => {
    const res = await h.request("GET", path, { key: null });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("dhs_http_requests_total");
  });

  it.each([
    ["GET", "/METRICS"],
    ["GET", "/"],
    ["POST", "/metrics"],
  ])("on its own port answers only GET /metrics (%s %s answers 404)", async (method, path) => {
    const res = await fetch(`${h.metricsUrl}${path}`, { method });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("dhs_http_requests_total");
  });

  it("counts requests and their latency by route, method and status", async () => {
    await h.request("GET", "/v1/me");
    await h.request("GET", "/v1/me", { key: null });
    await h.request("GET", "/no/such/path");
    const text = await metrics();
    expect(seriesValue(text, 'dhs_http_requests_total{route="/v1/me",method="GET",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(seriesValue(text, 'dhs_http_requests_total{route="unmatched",method="GET",status="401"}')).toBeGreaterThanOrEqual(1);
    expect(seriesValue(text, 'dhs_http_requests_total{route="unmatched",method="GET",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/dhs_http_request_duration_seconds_bucket\{le="0.005",route="\/v1\/me",method="GET",status="200"\}/);
    expect(text).toContain("process_cpu_user_seconds_total");
  });

  it("counts sessions created, and ended by status and end reason", async () => {
    const before = await metrics();
    const session = expectData(await h.client().createSession({}), 201);
    await h.client().endSession(session.id);
    const after = await metrics();
    expect(seriesValue(after, "dhs_sessions_created_total") - seriesValue(before, "dhs_sessions_created_total")).toBe(1);
    const ended = 'dhs_sessions_ended_total{status="cancelled",end_reason="user_ended"}';
    expect(seriesValue(after, ended) - seriesValue(before, ended)).toBe(1);
  });

  it("counts webhook deliveries by outcome", async () => {
    const session = expectData(await h.client().createSession({ participant_identity: "metered" }), 201);
    await h.webhook(roomEvent("participant_joined", session, { identity: "metered" }));
    await h.webhook(roomEvent("participant_joined", session, { identity: "metered" }), { authorization: null });
    const text = await metrics();
    expect(seriesValue(text, 'dhs_webhook_events_total{event="participant_joined",outcome="applied"}')).toBeGreaterThanOrEqual(1);
    expect(seriesValue(text, 'dhs_webhook_events_total{event="unknown",outcome="rejected"}')).toBeGreaterThanOrEqual(1);
  });

  it("shows no API key, token or session id", async () => {
    const session = expectData(await h.client().createSession({}), 201);
    const text = await metrics();
    expect(text).not.toContain("dhs_test_");
    expect(text).not.toContain(session.id);
    expect(text).not.toContain("eyJ");
  });
});
