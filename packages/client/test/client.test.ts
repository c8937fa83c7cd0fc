import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createClient, DhsApiError, unwrap } from "../src/index.js";
import { apiError, contextNote, interruption, json, scriptedFetch, session, utterance } from "./helpers.js";

const BASE = "http://dhs.test";
const KEY = "dhs_test_secret";
const ID = session.id;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function client(fetch: (r: Request) => Promise<Response>, maxRetries = 2) {
  return createClient({ baseUrl: `${BASE}/`, apiKey: KEY, fetch, maxRetries });
}

const WE = "we_5f2b9c1e7a3d4f60b8e1c2d3";
const UTT = utterance.id;

describe("each operation sends the request the contract describes", () => {
  type C = ReturnType<typeof createClient>;
  const cases: [string, { call: (c: C) => Promise<unknown>; method: string; path: string; search?: string; body?: unknown }][] = [
    [
      "createSession",
      {
        call: (c) => c.createSession({ participant_identity: "u1", tags: ["a"] }),
        method: "POST",
        path: "/v1/sessions",
        body: { participant_identity: "u1", tags: ["a"] },
      },
    ],
    ["createSession without a body sends {}", { call: (c) => c.createSession(), method: "POST", path: "/v1/sessions", body: {} }],
    ["getSession", { call: (c) => c.getSession(ID), method: "GET", path: `/v1/sessions/${ID}` }],
    [
      "listSessions",
      {
        call: (c) => c.listSessions({ status: "active", limit: 5, cursor: "abc" }),
        method: "GET",
        path: "/v1/sessions",
        search: "?status=active&limit=5&cursor=abc",
      },
    ],
    ["listSessions without a query", { call: (c) => c.listSessions(), method: "GET", path: "/v1/sessions", search: "" }],
    ["refreshSessionToken", { call: (c) => c.refreshSessionToken(ID), method: "POST", path: `/v1/sessions/${ID}/token` }],
    ["endSession", { call: (c) => c.endSession(ID), method: "POST", path: `/v1/sessions/${ID}/end` }],
    [
      "getSessionTranscript",
      {
        call: (c) => c.getSessionTranscript(ID, { limit: 50, cursor: "abc" }),
        method: "GET",
        path: `/v1/sessions/${ID}/transcript`,
        search: "?limit=50&cursor=abc",
      },
    ],
    ["deleteSessionTranscript", { call: (c) => c.deleteSessionTranscript(ID), method: "DELETE", path: `/v1/sessions/${ID}/transcript` }],
    ["say", { call: (c) => c.say(ID, { text: "Hello." }), method: "POST", path: `/v1/sessions/${ID}/say`, body: { text: "Hello." } }],
    [
      "say at once",
      {
        call: (c) => c.say(ID, { text: "Sorry to interrupt.", interrupt: true }),
        method: "POST",
        path: `/v1/sessions/${ID}/say`,
        body: { text: "Sorry to interrupt.", interrupt: true },
      },
    ],
    ["getUtterance", { call: (c) => c.getUtterance(ID, UTT), method: "GET", path: `/v1/sessions/${ID}/say/${UTT}` }],
    ["interruptSession", { call: (c) => c.interruptSession(ID), method: "POST", path: `/v1/sessions/${ID}/interrupt` }],
    [
      "addSessionContext",
      {
        call: (c) => c.addSessionContext(ID, { text: "The caller is Ines.", respond: true }),
        method: "POST",
        path: `/v1/sessions/${ID}/context`,
        body: { text: "The caller is Ines.", respond: true },
      },
    ],
    ["getPrincipal", { call: (c) => c.getPrincipal(), method: "GET", path: "/v1/me" }],
    [
      "listDigitalHumans",
      {
        call: (c) => c.listDigitalHumans({ limit: 2, cursor: "abc" }),
        method: "GET",
        path: "/v1/digital-humans",
        search: "?limit=2&cursor=abc",
      },
    ],
    ["getDigitalHuman", { call: (c) => c.getDigitalHuman(ID), method: "GET", path: `/v1/digital-humans/${ID}` }],
    [
      "createDigitalHuman",
      {
        call: (c) => c.createDigitalHuman({ name: "Maya", greeting: null }),
        method: "POST",
        path: "/v1/digital-humans",
        body: { name: "Maya", greeting: null },
      },
    ],
    [
      "updateDigitalHuman",
      {
        call: (c) => c.updateDigitalHuman(ID, { instructions: null, voice: "slt" }),
        method: "PATCH",
        path: `/v1/digital-humans/${ID}`,
        body: { instructions: null, voice: "slt" },
      },
    ],
    ["deleteDigitalHuman", { call: (c) => c.deleteDigitalHuman(ID), method: "DELETE", path: `/v1/digital-humans/${ID}` }],
    ["listVoices", { call: (c) => c.listVoices(), method: "GET", path: "/v1/voices" }],
    [
      "getUsage",
      {
        call: (c) => c.getUsage({ from: "2026-11-01", to: "2026-11-30" }),
        method: "GET",
        path: "/v1/usage",
        search: "?from=2026-11-01&to=2026-11-30",
      },
    ],
    [
      "createWebhookEndpoint",
      {
        call: (c) => c.createWebhookEndpoint({ url: "https://api.example.com/hooks", event_types: ["session.ended"] }),
        method: "POST",
        path: "/v1/webhook-endpoints",
        body: { url: "https://api.example.com/hooks", event_types: ["session.ended"] },
      },
    ],
    ["listWebhookEndpoints", { call: (c) => c.listWebhookEndpoints(), method: "GET", path: "/v1/webhook-endpoints" }],
    ["getWebhookEndpoint", { call: (c) => c.getWebhookEndpoint(WE), method: "GET", path: `/v1/webhook-endpoints/${WE}` }],
    ["deleteWebhookEndpoint", { call: (c) => c.deleteWebhookEndpoint(WE), method: "DELETE", path: `/v1/webhook-endpoints/${WE}` }],
    [
      "rotateWebhookEndpointSecret",
      { call: (c) => c.rotateWebhookEndpointSecret(WE), method: "POST", path: `/v1/webhook-endpoints/${WE}/rotate-secret` },
    ],
    ["enableWebhookEndpoint", { call: (c) => c.enableWebhookEndpoint(WE), method: "POST", path: `/v1/webhook-endpoints/${WE}/enable` }],
    ["testWebhookEndpoint", { call: (c) => c.testWebhookEndpoint(WE), method: "POST", path: `/v1/webhook-endpoints/${WE}/test` }],
    [
      "listWebhookDeliveries",
      {
        call: (c) => c.listWebhookDeliveries(WE, { limit: 5, cursor: "abc" }),
        method: "GET",
        path: `/v1/webhook-endpoints/${WE}/deliveries`,
        search: "?limit=5&cursor=abc",
      },
    ],
  ];

  it.each(cases)("%s", async (_name, want) => {
    const { fetch, requests } = scriptedFetch(json(200, session));
    await want.call(client(fetch));
    expect(requests).toHaveLength(1);
    const [sent] = requests;
    expect(sent?.method).toBe(want.method);
    expect(sent?.path).toBe(want.path);
    if (want.search !== undefined) expect(sent?.search).toBe(want.search);
    expect(sent?.headers.get("Authorization")).toBe(`Bearer ${KEY}`);
    expect(sent?.body).toEqual(want.body);
  });

  it("escapes a session id so it cannot leave its path segment", async () => {
    const { fetch, requests } = scriptedFetch(apiError(404, "not_found"));
    await client(fetch).getSession("../me");
    expect(requests[0]?.path).toBe("/v1/sessions/..%2Fme");
  });
});

describe("createSession and the Idempotency-Key", () => {
  it("generates a UUID v4 key when none is given, a new one per call", async () => {
    const { fetch, requests } = scriptedFetch(json(201, session), json(201, session));
    const c = client(fetch);
    await c.createSession();
    await c.createSession();
    const keys = requests.map((r) => r.headers.get("Idempotency-Key"));
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys[1]).toMatch(UUID_V4);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("sends the caller's key as given", async () => {
    const { fetch, requests } = scriptedFetch(json(201, session));
    await client(fetch).createSession({}, { idempotencyKey: "order-42" });
    expect(requests[0]?.headers.get("Idempotency-Key")).toBe("order-42");
  });

  it("answers 201 data and exposes Idempotent-Replayed on the response", async () => {
    const { fetch } = scriptedFetch(json(201, session, { "Idempotent-Replayed": "true" }));
    const { data, error, response } = await client(fetch).createSession({}, { idempotencyKey: "k" });
    expect(error).toBeUndefined();
    expect(data).toEqual(session);
    expect(response.headers.get("Idempotent-Replayed")).toBe("true");
  });
});

describe("say, addSessionContext and the Idempotency-Key, as a create's", () => {
  type C = ReturnType<typeof createClient>;
  const calls: [string, (c: C, key?: string) => Promise<{ data?: unknown; response: Response }>, unknown][] = [
    ["say", (c, key) => c.say(ID, { text: "Hello." }, key ? { idempotencyKey: key } : {}), utterance],
    ["addSessionContext", (c, key) => c.addSessionContext(ID, { text: "A note." }, key ? { idempotencyKey: key } : {}), contextNote],
  ];

  it.each(calls)("%s generates a UUID v4 key when none is given, a new one per call", async (_name, call, answer) => {
    const { fetch, requests } = scriptedFetch(json(202, answer), json(202, answer));
    const c = client(fetch);
    await call(c);
    await call(c);
    const keys = requests.map((r) => r.headers.get("Idempotency-Key"));
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys[1]).toMatch(UUID_V4);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it.each(calls)("%s sends the caller's key as given, and answers 202 data with Idempotent-Replayed", async (_name, call, answer) => {
    const { fetch, requests } = scriptedFetch(json(202, answer, { "Idempotent-Replayed": "true" }));
    const { data, response } = await call(client(fetch), "turn-7-answer");
    expect(requests[0]?.headers.get("Idempotency-Key")).toBe("turn-7-answer");
    expect(data).toEqual(answer);
    expect(response.status).toBe(202);
    expect(response.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("answers getUtterance and interruptSession with their data", async () => {
    const spoken = { ...utterance, status: "spoken", ended_at: "2026-11-22T09:27:44.620Z" };
    const { fetch } = scriptedFetch(json(200, spoken), json(200, interruption));
    const c = client(fetch);
    expect(unwrap(await c.getUtterance(ID, UTT))).toEqual(spoken);
    expect(unwrap(await c.interruptSession(ID))).toEqual(interruption);
  });

  // A conversation's bounds are the caller's to handle: an utterance said late is worse than one not
  // said, and a terminal session never takes one.
  it.each([
    [409, "session_ended"],
    [429, "conversation_queue_full"],
    [429, "conversation_rate_limited"],
  ])("say answers %i %s at once, without a retry", async (status, code) => {
    const { fetch, requests } = scriptedFetch(apiError(status, code, { "Retry-After": "1" }));
    const { error, response } = await client(fetch).say(ID, { text: "Hello." });
    expect(error).toMatchObject({ code });
    expect(response.status).toBe(status);
    expect(requests).toHaveLength(1);
  });

  it("addSessionContext answers 409 conversation_notes_limit_reached at once, without a retry", async () => {
    const { fetch, requests } = scriptedFetch(apiError(409, "conversation_notes_limit_reached"));
    const { error } = await client(fetch).addSessionContext(ID, { text: "One note too many." });
    expect(error).toMatchObject({ code: "conversation_notes_limit_reached" });
    expect(requests).toHaveLength(1);
  });
});

describe("HTTP errors are typed data, never exceptions", () => {
  it.each([
    [401, "unauthorized"],
    [403, "forbidden"],
    [404, "not_found"],
    [409, "idempotency_key_reused"],
    [409, "session_not_connectable"],
    [413, "payload_too_large"],
    [422, "validation_failed"],
    [429, "concurrency_limit_exceeded"],
    [500, "internal_error"],
  ])("%i %s resolves with error and no retry", async (status, code) => {
    const { fetch, requests } = scriptedFetch(apiError(status, code));
    const { data, error, response } = await client(fetch).createSession();
    expect(data).toBeUndefined();
    expect(error).toMatchObject({ code, request_id: "req_test" });
    expect(response.status).toBe(status);
    expect(requests).toHaveLength(1);
  });
});

describe("retries of transient failures", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function settle<T>(promise: Promise<T>): Promise<T> {
    await vi.runAllTimersAsync();
    return promise;
  }

  it.each([
    ["503 service_unavailable", () => apiError(503, "service_unavailable", { "Retry-After": "1" })],
    ["429 rate_limited", () => apiError(429, "rate_limited", { "Retry-After": "1" })],
    ["429 from a proxy, without an ApiError", () => new Response("slow down", { status: 429, headers: { "Retry-After": "1" } })],
    ["502 from a gateway", () => new Response("bad gateway", { status: 502 })],
    ["504 from a gateway", () => new Response("timeout", { status: 504 })],
    ["409 idempotency_request_in_progress", () => apiError(409, "idempotency_request_in_progress", { "Retry-After": "1" })],
    ["a network failure", () => new TypeError("fetch failed")],
  ])("retries a create after %s with the same key and body", async (_name, failure) => {
    const { fetch, requests } = scriptedFetch(failure(), json(201, session));
    const result = await settle(client(fetch).createSession({ participant_identity: "u1" }));
    expect(result.data).toEqual(session);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.headers.get("Idempotency-Key")).toBe(requests[0]?.headers.get("Idempotency-Key"));
    expect(requests[1]?.body).toEqual({ participant_identity: "u1" });
  });

  it.each<[string, (c: ReturnType<typeof client>) => Promise<{ data?: unknown }>, unknown]>([
    ["say", (c) => c.say(ID, { text: "Hello.", interrupt: true }), utterance],
    ["addSessionContext", (c) => c.addSessionContext(ID, { text: "A note." }), contextNote],
  ])("retries %s after a 503 with the key it generated and the same body", async (_name, call, answer) => {
    const { fetch, requests } = scriptedFetch(apiError(503, "service_unavailable", { "Retry-After": "1" }), json(202, answer));
    const { data } = await settle(call(client(fetch)));
    expect(data).toEqual(answer);
    expect(requests).toHaveLength(2);
    expect(requests[0]?.headers.get("Idempotency-Key")).toMatch(UUID_V4);
    expect(requests[1]?.headers.get("Idempotency-Key")).toBe(requests[0]?.headers.get("Idempotency-Key"));
    expect(requests[1]?.body).toEqual(requests[0]?.body);
  });

  it("stops after maxRetries and answers the last failure", async () => {
    const { fetch, requests } = scriptedFetch(
      apiError(503, "service_unavailable"),
      apiError(503, "service_unavailable"),
      apiError(503, "service_unavailable"),
    );
    const { error, response } = await settle(client(fetch, 2).createSession());
    expect(requests).toHaveLength(3);
    expect(response.status).toBe(503);
    expect(error).toMatchObject({ code: "service_unavailable" });
  });

  it("does not retry when maxRetries is 0", async () => {
    const { fetch, requests } = scriptedFetch(apiError(503, "service_unavailable"));
    const { response } = await settle(client(fetch, 0).createSession());
    expect(requests).toHaveLength(1);
    expect(response.status).toBe(503);
  });

  it("throws the network error once retries are exhausted", async () => {
    const { fetch, requests } = scriptedFetch(new TypeError("fetch failed"), new TypeError("fetch failed"));
    const pending = client(fetch, 1).getSession(ID);
    const assertion = expect(pending).rejects.toThrow("fetch failed");
    await vi.runAllTimersAsync();
    await assertion;
    expect(requests).toHaveLength(2);
  });

  it("waits the Retry-After the server asks for", async () => {
    const { fetch, requests } = scriptedFetch(apiError(429, "rate_limited", { "Retry-After": "3" }), json(200, session));
    const pending = client(fetch).getSession(ID);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(requests).toHaveLength(2);
    expect((await pending).data).toEqual(session);
  });

  it("answers at once when Retry-After is longer than it would wait", async () => {
    const { fetch, requests } = scriptedFetch(apiError(503, "service_unavailable", { "Retry-After": "3600" }));
    const { response } = await settle(client(fetch).getSession(ID));
    expect(requests).toHaveLength(1);
    expect(response.status).toBe(503);
  });

  type Call = (c: ReturnType<typeof client>) => Promise<{ data?: unknown }>;
  it.each<[string, Call]>([
    ["getSession", (c) => c.getSession(ID)],
    ["listSessions", (c) => c.listSessions()],
    ["getPrincipal", (c) => c.getPrincipal()],
    ["endSession", (c) => c.endSession(ID)],
    ["refreshSessionToken", (c) => c.refreshSessionToken(ID)],
    ["getSessionTranscript", (c) => c.getSessionTranscript(ID)],
    ["deleteSessionTranscript", (c) => c.deleteSessionTranscript(ID)],
    ["getUtterance", (c) => c.getUtterance(ID, UTT)],
    ["interruptSession", (c) => c.interruptSession(ID)],
  ])("retries %s, which is safe to repeat", async (_name, call) => {
    const { fetch, requests } = scriptedFetch(apiError(503, "service_unavailable"), json(200, session));
    const { data } = await settle(call(client(fetch)));
    expect(data).toEqual(session);
    expect(requests).toHaveLength(2);
  });

  it.each<[string, Call]>([
    ["updateDigitalHuman", (c) => c.updateDigitalHuman(ID, { name: "Maya" })],
    ["rotateWebhookEndpointSecret", (c) => c.rotateWebhookEndpointSecret(ID)],
  ])("retries %s after 429 concurrent_changes, which says nothing was changed", async (_name, call) => {
    const { fetch, requests } = scriptedFetch(apiError(429, "concurrent_changes", { "Retry-After": "1" }), json(200, session));
    const { data } = await settle(call(client(fetch)));
    expect(data).toEqual(session);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.body).toEqual(requests[0]?.body);
  });

  it("does not retry rotateWebhookEndpointSecret after a 503, which may have come after the rotation", async () => {
    const { fetch, requests } = scriptedFetch(apiError(503, "service_unavailable"));
    const { response } = await settle(client(fetch).rotateWebhookEndpointSecret(ID));
    expect(requests).toHaveLength(1);
    expect(response.status).toBe(503);
  });

  it("does not retry a raw POST without an Idempotency-Key", async () => {
    const { fetch, requests } = scriptedFetch(apiError(503, "service_unavailable"));
    const c = client(fetch);
    // A raw call that skips the key is refused by the server with 422, but the client must not repeat it.
    const { response } = await settle(c.raw.POST("/v1/sessions", { body: {}, params: { header: {} as { "Idempotency-Key": string } } }));
    expect(requests).toHaveLength(1);
    expect(response.status).toBe(503);
  });

  it("gives an attempt up after timeoutMs and retries it", async () => {
    let calls = 0;
    const hang = (request: Request) =>
      new Promise<Response>((_resolve, reject) => {
        request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
      });
    vi.useRealTimers();
    const c = createClient({
      baseUrl: BASE,
      apiKey: KEY,
      timeoutMs: 50,
      maxRetries: 1,
      fetch: async (request) => (++calls === 1 ? hang(request) : json(200, session)),
    });
    const { data } = await c.getSession(ID);
    expect(calls).toBe(2);
    expect(data).toEqual(session);
  });

  it("does not retry once the caller aborts", async () => {
    vi.useRealTimers();
    const controller = new AbortController();
    let calls = 0;
    const c = createClient({
      baseUrl: BASE,
      apiKey: KEY,
      fetch: async (request) => {
        calls++;
        controller.abort(new Error("caller gave up"));
        throw request.signal.reason;
      },
    });
    await expect(c.getSession(ID, { signal: controller.signal })).rejects.toThrow("caller gave up");
    expect(calls).toBe(1);
  });
});

describe("unwrap", () => {
  it("returns the data of a success", async () => {
    const { fetch } = scriptedFetch(json(200, session));
    expect(unwrap(await client(fetch).getSession(ID))).toEqual(session);
  });

  it("throws a DhsApiError with status, code, detail and request id", async () => {
    const { fetch } = scriptedFetch(apiError(404, "not_found"));
    const result = await client(fetch).getSession(ID);
    let thrown: unknown;
    try {
      unwrap(result);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DhsApiError);
    expect(thrown).toMatchObject({ status: 404, code: "not_found", detail: "not_found in a test", requestId: "req_test" });
    expect(String(thrown)).toContain("404 not_found (request req_test)");
  });

  it("names an error that is not an ApiError by its status", async () => {
    const { fetch } = scriptedFetch(new Response("<html>bad gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } }));
    const result = await client(fetch, 0).getSession(ID);
    expect(() => unwrap(result)).toThrow(expect.objectContaining({ status: 502, code: "http_502" }));
  });
});

describe("createClient options", () => {
  it.each([
    ["baseUrl", { baseUrl: "", apiKey: KEY }],
    ["apiKey", { baseUrl: BASE, apiKey: "" }],
  ])("refuses an empty %s", (_name, options) => {
    expect(() => createClient(options)).toThrow(TypeError);
  });
});
