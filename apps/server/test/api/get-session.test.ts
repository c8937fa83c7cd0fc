import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, KEYS, LIVEKIT, expectApiError, startHarness, tokenVerifier } from "../support/harness.js";

let h: Harness;
let created: Record<string, any>;
beforeAll(async () => {
  h = await startHarness({ PARTICIPANT_TOKEN_TTL_S: "120" });
  created = await (await h.create({ participant_identity: "getter" })).json();
});
afterAll(async () => {
  await h.close();
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

  it.each(["not-a-uuid", "123", "3fa85f64-5717-4562-b3fc-2c963f66afa6x", "%7B%7D"])("answers 404 not_found for the malformed id %s", async (id) => {
    await expectApiError(await h.request("GET", `/v1/sessions/${id}`), 404, "not_found");
  });

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
