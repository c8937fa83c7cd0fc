/**
 * What HTTP itself answers, on raw requests: request ids, security headers, CORS, unknown routes and
 * methods, malformed ids, probes, and how requests are logged (their calls through the client where a
 * customer's would do the same).
 */
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, useHarness } from "../support/harness.js";

const h = useHarness();

describe("every answer", () => {
  it("carries a unique X-Request-ID", async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => h.request("GET", i % 2 ? "/v1/me" : "/nope")));
    const ids = responses.map((res) => res.headers.get("X-Request-ID"));
    expect(ids.every((id) => /^req_[0-9a-f]{32}$/.test(id ?? ""))).toBe(true);
    expect(new Set(ids).size).toBe(30);
  });

  it("carries security headers and no CORS headers, even when a browser asks", async () => {
    const res = await h.request("GET", "/v1/me", { headers: { Origin: "https://evil.example" } });
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Strict-Transport-Security")).toMatch(/max-age=/);
    expect(res.headers.get("Content-Security-Policy")).toBeTruthy();
    expect(res.headers.get("X-Powered-By")).toBeNull();
    for (const [name] of res.headers) expect(name.toLowerCase().startsWith("access-control-")).toBe(false);
  });

  it("answers a CORS preflight with an error, not with CORS headers", async () => {
    const res = await h.request("OPTIONS", "/v1/sessions", {
      key: null,
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("an unknown route", () => {
  it.each([
    ["GET", "/nope", null],
    ["GET", "/v2/sessions", null],
    ["GET", "/v1/nope", undefined],
    ["POST", "/v1/sessions/3fa85f64-5717-4562-b3fc-2c963f66afa6/nope", undefined],
  ] as const)("%s %s answers 404 not_found", async (method, path, key) => {
    await expectApiError(await h.request(method, path, { key }), 404, "not_found");
  });

  it("under /v1 without a key answers 401 first", async () => {
    await expectApiError(await h.request("GET", "/v1/nope", { key: null }), 401, "unauthorized");
  });
});

describe("a known path with another method", () => {
  it("DELETE /v1/sessions answers 405 method_not_allowed with Allow", async () => {
    const res = await h.request("DELETE", "/v1/sessions");
    await expectApiError(res, 405, "method_not_allowed");
    expect(res.headers.get("Allow")).toMatch(/GET/);
    expect(res.headers.get("Allow")).toMatch(/POST/);
  });
});

describe("GET /v1/sessions query validation", () => {
  it("answers 422 for a limit out of range", async () => {
    const error = await expectApiError(await h.client().listSessions({ limit: 0 }), 422, "validation_failed");
    expect(error.detail).toEqual([expect.objectContaining({ location: "query", path: "limit" })]);
  });
});

describe("probes", () => {
  it("GET /healthz answers 200 without a key", async () => {
    const res = await h.request("GET", "/healthz", { key: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("GET /readyz answers 200 while the store answers", async () => {
    const res = await h.request("GET", "/readyz", { key: null });
    expect(res.status).toBe(200);
  });
});

describe("request logs", () => {
  it("are one JSON line per request with id, route, status and duration, and never a key or token", async () => {
    const created = expectData(await h.client().createSession({ participant_identity: "logged" }), 201);
    await h.client().getSession(created.id);
    const lines = h.logs.map((line) => JSON.parse(line) as Record<string, any>);
    const requests = lines.filter((line) => line.msg === "request");
    const get = requests.find((line) => line.req?.url === `/v1/sessions/${created.id}`);
    expect(get).toMatchObject({
      request_id: expect.stringMatching(/^req_/),
      route: "/v1/sessions/{session_id}",
      res: { status: 200 },
      duration_ms: expect.any(Number),
      account_id: "acct_a",
    });
    const all = h.logs.join("\n");
    expect(all).not.toContain("dhs_test_");
    expect(all).not.toContain(created.participant_token as string);
    expect(all).not.toContain("eyJ");
  });
});

describe("request logs of a path holding a secret", () => {
  it.each([
    ["an API key", "/v1/sessions/dhs_pasted_by_mistake_AbCdEfGhIjKlMnOp"],
    ["a participant token", "/v1/sessions/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"],
  ])("redact %s pasted into the path", async (_name, path) => {
    const res = await h.request("GET", path);
    const requestId = res.headers.get("X-Request-ID");
    const line = h.logs.map((l) => JSON.parse(l) as { request_id?: string; req?: { url: string } }).find((l) => l.request_id === requestId);
    expect(line?.req?.url).toBe("/v1/sessions/[redacted]");
  });
});

describe("logs of a dependency outage", () => {
  it("are one warning naming the dependency, without a stack", async () => {
    h.livekit.mode = "fail";
    const { response } = await h.client().createSession({});
    h.livekit.mode = "ok";
    const requestId = response.headers.get("X-Request-ID");
    const lines = h.logs.map((line) => JSON.parse(line) as Record<string, any>).filter((line) => line.request_id === requestId);
    expect(lines.map((line) => line.msg).sort()).toEqual(["dependency unavailable", "request"]);
    expect(lines.find((line) => line.msg === "dependency unavailable")).toMatchObject({ level: 40, dependency: "livekit" });
    expect(lines.find((line) => line.msg === "request")).toMatchObject({ level: 40, res: { status: 503 } });
    expect(JSON.stringify(lines)).not.toContain("stack");
  });
});

describe("a path whose id is malformed or unknown", () => {
  it.each([
    ["GET", "/v1/sessions/{id}", "session", KEYS.a],
    ["POST", "/v1/sessions/{id}/end", "session", KEYS.a],
    ["GET", "/v1/webhook-endpoints/{id}", "webhook endpoint", KEYS.aHooks],
    ["GET", "/v1/webhook-endpoints/{id}/deliveries", "webhook endpoint", KEYS.aHooks],
    ["GET", "/v1/digital-humans/{id}", "digital human", KEYS.a],
  ])("%s %s answers 404 with a detail naming a %s", async (method, path, resource, key) => {
    const ids = resource === "webhook endpoint" ? ["not-an-id", "we_000000000000000000000099"] : ["not-a-uuid", crypto.randomUUID()];
    for (const id of ids) {
      const error = await expectApiError(await h.request(method, path.replace("{id}", id), { key }), 404, "not_found");
      expect(error.detail).toMatch(new RegExp(`^No (such )?${resource}\\b`));
    }
  });
});
