/**
 * Reading one session (GET /v1/sessions/{id}) through the client: the session, its fresh token, and who
 * may read it. Raw requests for what a client never sends: no key, malformed paths, and bodies, content
 * types and query parameters on operations that take none.
 */
import { request as httpRequest } from "node:http";
import type { Session } from "@dhs/client";
import { beforeAll, describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, LIVEKIT, tokenVerifier, useHarness } from "../support/harness.js";

const h = useHarness({ PARTICIPANT_TOKEN_TTL_S: "120" });
let created: Session;
beforeAll(async () => {
  created = expectData(await h.client().createSession({ participant_identity: "getter" }), 201);
});

describe("GET /v1/sessions/{id}, for the account's own session", () => {
  it("answers 200 with the current session and a freshly minted token for its room", async () => {
    const answer = await h.client().getSession(created.id);
    const session = expectData(answer);
    expect(answer.response.headers.get("Cache-Control")).toBe("no-store");
    expect({ ...session, participant_token: "*" }).toEqual({ ...created, participant_token: "*" });
    expect(session.rtc_url).toBe(LIVEKIT.url);
    const claims = await tokenVerifier.verify(session.participant_token as string);
    expect(claims).toMatchObject({ sub: "getter", video: { room: created.room_name, roomJoin: true } });
    expect(claims.exp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 120);
    expect(claims.exp).toBeGreaterThan(Math.floor(Date.now() / 1000) + 110);
  });

  it("answers for a read-only key as well", async () => {
    expect((await h.client(KEYS.aRead).getSession(created.id)).response.status).toBe(200);
  });

  it("accepts the id in upper case as the same UUID", async () => {
    expect(expectData(await h.client().getSession(created.id.toUpperCase())).id).toBe(created.id);
  });
});

describe("GET /v1/sessions/{id}, errors", () => {
  it("answers 404 not_found for another account's session, as if it did not exist", async () => {
    await expectApiError(await h.client(KEYS.b).getSession(created.id), 404, "not_found");
  });

  it("answers 404 not_found for an unknown id", async () => {
    await expectApiError(await h.client().getSession(crypto.randomUUID()), 404, "not_found");
  });

  // Raw paths: a client would encode them.
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
    const error = await expectApiError(await h.client(KEYS.aWrite).getSession(created.id), 403, "forbidden");
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
    const session = expectData(await h.client().createSession({}), 201);
    expect(
      (await h.request("POST", `/v1/sessions/${session.id}/end`, { raw: "{not json", headers: { "Content-Type": "x2%" } })).status,
    ).toBe(200);
  });

  it("GET /v1/sessions still refuses a query parameter it does not define", async () => {
    await expectApiError(await h.request("GET", "/v1/sessions?expand=everything"), 422, "validation_failed");
  });
});
