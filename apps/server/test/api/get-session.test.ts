import { request as httpRequest } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { expectApiError, KEYS, LIVEKIT, tokenVerifier, useHarness } from "../support/harness.js";

const h = useHarness({ PARTICIPANT_TOKEN_TTL_S: "120" });
let created: Record<string, any>;
beforeAll(async () => {
  created = await (await h.create({ participant_identity: "getter" })).json();
});

describe("GET /v1/sessions/{id}, for the account's own session", () => {
  it("answers 200 with the current session and a freshly minted token for its room", async () => {
    const res = await h.request("GET", `/v1/sessions/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const session = await res.json();
    expect({ ...session, participant_token: "*" }).toEqual({ ...created, participant_token: "*" });
    expect(session.rtc_url).toBe(LIVEKIT.url);
    const claims = await tokenVerifier.verify(session.participant_token);
    expect(claims).toMatchObject({ sub: "getter", video: { room: created.room_name, roomJoin: true } });
    expect(claims.exp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 120);
    expect(claims.exp).toBeGreaterThan(Math.floor(Date.now() / 1000) + 110);
  });

  it("answers for a read-only key as well", async () => {
    expect((await h.request("GET", `/v1/sessions/${created.id}`, { key: KEYS.aRead })).status).toBe(200);
  });

  it("accepts the id in upper case as the same UUID", async () => {
    const res = await h.request("GET", `/v1/sessions/${created.id.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect((await res.json()).id).toBe(created.id);
  });
});

describe("GET /v1/sessions/{id}, errors", () => {
  it("answers 404 not_found for another account's session, as if it did not exist", async () => {
    const res = await h.request("GET", `/v1/sessions/${created.id}`, { key: KEYS.b });
    await expectApiError(res, 404, "not_found");
  });

  it("answers 404 not_found for an unknown id", async () => {
    await expectApiError(await h.request("GET", `/v1/sessions/${crypto.randomUUID()}`), 404, "not_found");
  });

  it.each(["not-a-uuid", "123", "3fa85f64-5717-4562-b3fc-2c963f66afa6x", "%7B%7D"])(
    "answers 404 not_found for the malformed id %s",
    async (id) => {
      await expectApiError(await h.request("GET", `/v1/sessions/${id}`), 404, "not_found");
    },
  );

  it("answers 401 unauthorized without a key", async () => {
    await expectApiError(await h.request("GET", `/v1/sessions/${created.id}`, { key: null }), 401, "unauthorized");
  });

  it("answers 403 forbidden naming sessions:read for a write-only key", async () => {
    const error = await expectApiError(await h.request("GET", `/v1/sessions/${created.id}`, { key: KEYS.aWrite }), 403, "forbidden");
    expect(error.detail).toEqual({ missing_scope: "sessions:read" });
  });

  it("answers 401 before 404 for a malformed id without a key", async () => {
    await expectApiError(await h.request("GET", "/v1/sessions/nope", { key: null }), 401, "unauthorized");
  });
});

describe("operations without a request body or query parameters", () => {
  // What a careless client sends along; none of it is input to these operations, so none of it can fail them.
  const extras: [string, { raw?: string; headers?: Record<string, string> }, string][] = [
    ["a JSON body", { raw: '{"participant_identity":"x"}' }, ""],
    ["malformed JSON", { raw: "{not json" }, ""],
    ["a body over 64 KiB", { raw: JSON.stringify({ pad: "x".repeat(70_000) }) }, ""],
    ["a Content-Type that is not a media type", { raw: "{}", headers: { "Content-Type": "x2%" } }, ""],
    ["metadata nested too deep", { raw: `{"metadata":${"[".repeat(100)}${"]".repeat(100)}}` }, ""],
    ["an unknown query parameter", {}, "?expand=everything&limit=1e9"],
  ];

  /** fetch sends no body with a GET; node:http does, as some clients do. */
  function get(path: string, init: { raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const body = init.raw;
      const headers = {
        Authorization: `Bearer ${KEYS.a}`,
        "Content-Type": "application/json",
        ...init.headers,
        ...(body ? { "Content-Length": String(Buffer.byteLength(body)) } : {}),
      };
      const req = httpRequest(`${h.url}${path}`, { method: "GET", headers }, (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  it.each(extras)("GET /v1/sessions/{id} with %s answers 200", async (_name, init, query) => {
    const res = await get(`/v1/sessions/${created.id}${query}`, init);
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).id).toBe(created.id);
  });

  it.each(extras)("POST /v1/sessions/{id}/token with %s answers 200", async (_name, init, query) => {
    expect((await h.request("POST", `/v1/sessions/${created.id}/token${query}`, init)).status).toBe(200);
  });

  it.each(extras)("GET /v1/me with %s answers 200", async (_name, init, query) => {
    expect((await get(`/v1/me${query}`, init)).status).toBe(200);
  });

  it("POST /v1/sessions/{id}/end with a body it does not take answers 200", async () => {
    const session = await (await h.create({})).json();
    expect(
      (await h.request("POST", `/v1/sessions/${session.id}/end`, { raw: "{not json", headers: { "Content-Type": "x2%" } })).status,
    ).toBe(200);
  });

  it("GET /v1/sessions still refuses a query parameter it does not define", async () => {
    await expectApiError(await h.request("GET", "/v1/sessions?expand=everything"), 422, "validation_failed");
  });
});
