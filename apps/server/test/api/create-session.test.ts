/**
 * Creating a session (POST /v1/sessions) through the client: what a create answers, the token and the
 * room it makes, the contract's limits on its body, and LiveKit being down. Raw requests for the
 * Idempotency-Key header itself, bodies that are not a JSON object, and the 401/403 ordering.
 */
import type { SessionCreate } from "@dhs/client";
import { describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, LIVEKIT, tokenVerifier, useHarness } from "../support/harness.js";

const h = useHarness();
/** A create through the client; a body the contract refuses is sent as given. */
const create = (body: unknown = {}, options: { idempotencyKey?: string } = {}) => h.client().createSession(body as SessionCreate, options);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("POST /v1/sessions, with a valid key and body", () => {
  it("answers 201 with the eight fields of a created session", async () => {
    const answer = await create({ participant_identity: "user-1", tags: ["a"], metadata: { x: 1 } });
    const session = expectData(answer, 201);
    const res = answer.response;
    expect(res.headers.get("X-Request-ID")).toMatch(/^req_/);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(Object.keys(session).sort()).toEqual([
      "created_at",
      "ended_at",
      "id",
      "participant_token",
      "room_name",
      "rtc_url",
      "started_at",
      "status",
    ]);
    expect(session).toMatchObject({
      status: "created",
      room_name: `dhs-${session.id}`,
      rtc_url: LIVEKIT.url,
      started_at: null,
      ended_at: null,
    });
    expect(session.id).toMatch(UUID);
    expect(Math.abs(Date.parse(session.created_at) - Date.now())).toBeLessThan(5_000);
  });

  it("mints a LiveKit token for the room and identity, valid for 600 s, that TokenVerifier accepts", async () => {
    const before = Math.floor(Date.now() / 1000);
    const session = expectData(await create({ participant_identity: "user-token" }), 201);
    const claims = await tokenVerifier.verify(session.participant_token as string);
    expect(claims.sub).toBe("user-token");
    expect(claims.video).toMatchObject({ room: session.room_name, roomJoin: true, canPublish: true, canSubscribe: true });
    expect(claims.video?.roomCreate).toBeFalsy();
    expect(claims.exp).toBeGreaterThanOrEqual(before + 600);
    expect(claims.exp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 600);
  });

  it("generates a participant identity when none is given", async () => {
    const session = expectData(await create({}), 201);
    const claims = await tokenVerifier.verify(session.participant_token as string);
    expect(claims.sub).toMatch(/^participant-[0-9a-f]{12}$/);
  });

  it("creates the room in LiveKit with the default digital human's agent dispatched", async () => {
    const session = expectData(await create({}), 201);
    const [call] = h.livekit.callsOf("CreateRoom");
    expect(call?.body).toMatchObject({
      name: session.room_name,
      // LiveKit's own closing of the room comes 30 s after the service's join (600 s) and departure
      // (30 s) timeouts: LiveKit's default departure timeout (20 s) would end a left session first.
      emptyTimeout: 630,
      departureTimeout: 60,
      maxParticipants: 3,
      agents: [{ agentName: DIGITAL_HUMANS[0].agent_name }],
    });
    // The deployment (its REDIS_KEY_PREFIX) tells its rooms from another's on a shared LiveKit.
    expect(JSON.parse(call?.body.metadata)).toEqual({ session_id: session.id, account_id: "acct_a", deployment: expect.any(String) });
  });

  it("tells the digital human's job who it is, whom to greet and how long the session may last, and tells the room only whose it is", async () => {
    const session = expectData(await create({ participant_identity: "grace", digital_human_id: DIGITAL_HUMANS[1].id }), 201);
    const [call] = h.livekit.callsOf("CreateRoom");
    expect(JSON.parse(call?.body.agents[0].metadata)).toEqual({
      session_id: session.id,
      account_id: "acct_a",
      // Leo's catalog entry says only who it is: the rest of its persona is the deployment's defaults.
      digital_human: {
        id: DIGITAL_HUMANS[1].id,
        name: "Leo",
        appearance: DIGITAL_HUMANS[1].id,
        instructions: null,
        greeting: "Hello {participant_identity}! I'm {name}. It's good to meet you. Say something, and I will listen.",
        voice: "slt",
        language: "en",
        llm: { model: null, temperature: null },
        tools: [],
      },
      participant_identity: "grace",
      max_duration_s: 1800,
    });
    expect(call?.body.metadata).not.toContain("grace");
  });

  it("dispatches the agent of the digital human it names", async () => {
    expect((await create({ digital_human_id: DIGITAL_HUMANS[1].id })).response.status).toBe(201);
    expect(h.livekit.callsOf("CreateRoom")[0]?.body.agents).toEqual([expect.objectContaining({ agentName: "leo-agent" })]);
  });
});

describe("POST /v1/sessions, when digital_human_id names no digital human", () => {
  it("answers 422 digital_human_not_found, creates no room, and leaves the key usable", async () => {
    const idempotencyKey = crypto.randomUUID();
    const answer = await create({ digital_human_id: "00000000-0000-4000-8000-000000000000" }, { idempotencyKey });
    const body = await expectApiError(answer, 422, "digital_human_not_found");
    expect(body.detail).toContain("00000000-0000-4000-8000-000000000000");
    expect(h.livekit.callsOf("CreateRoom")).toHaveLength(0);
    expect((await create({}, { idempotencyKey })).response.status).toBe(201);
  });
});

describe("POST /v1/sessions, limits of the contract", () => {
  const cases: [string, number, unknown][] = [
    ["identity of 0 characters", 422, { participant_identity: "" }],
    ["identity of 1 character", 201, { participant_identity: "a" }],
    ["identity of 100 characters", 201, { participant_identity: "x".repeat(100) }],
    ["identity of 101 characters", 422, { participant_identity: "x".repeat(101) }],
    ["20 tags", 201, { tags: Array.from({ length: 20 }, (_, i) => `t${i}`) }],
    ["21 tags", 422, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
    ["no tags", 201, { tags: [] }],
    ["a tag that is not a string", 422, { tags: [1] }],
    ["a digital_human_id that is not a UUID", 422, { digital_human_id: "ava" }],
    ["metadata that is not an object", 422, { metadata: [1, 2] }],
    ["nested metadata", 201, { metadata: { a: { b: [1, { c: null }] } } }],
    ["a property the contract does not have", 422, { name: "Ava" }],
    ["an identity that is a number", 422, { participant_identity: 7 }],
  ];
  it.each(cases)("%s answers %i", async (_name, status, body) => {
    const answer = await create(body);
    if (status === 201) expect(answer.response.status).toBe(201);
    else await expectApiError(answer, status, "validation_failed");
  });

  // The Idempotency-Key header as sent, raw: the client would generate one, or send its own.
  const keys: [string, number, number][] = [
    ["an Idempotency-Key of 0 characters", 422, 0],
    ["an Idempotency-Key of 1 character", 201, 1],
    ["an Idempotency-Key of 200 characters", 201, 200],
    ["an Idempotency-Key of 201 characters", 422, 201],
  ];
  it.each(keys)("%s answers %i", async (_name, status, length) => {
    const uuid = crypto.randomUUID();
    const idempotencyKey = length <= uuid.length ? uuid.slice(0, length) : uuid.padEnd(length, "k");
    const res = await h.request("POST", "/v1/sessions", { body: {}, headers: { "Idempotency-Key": idempotencyKey } });
    if (status === 201) expect(res.status).toBe(201);
    else {
      const error = await expectApiError(res, 422, "validation_failed");
      expect(error.detail.length).toBeGreaterThan(0);
      for (const issue of error.detail) expect(issue).toMatchObject({ location: "header", path: "Idempotency-Key" });
    }
  });

  it.each([
    ["a space", "key with space"],
    ["a non-ASCII character", "clé"],
  ])("an Idempotency-Key with %s answers 422", async (_name, idempotencyKey) => {
    const res = await h.request("POST", "/v1/sessions", { body: {}, headers: { "Idempotency-Key": idempotencyKey } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "header", path: "Idempotency-Key", message: 'must match pattern "^[!-~]+$"' }]);
  });

  it.each([
    ["a control character in the identity", { participant_identity: "a\u0007b" }],
    ["a tag of 65 characters", { tags: ["t".repeat(65)] }],
    ["an empty tag", { tags: [""] }],
  ])("%s answers 422", async (_name, body) => {
    await expectApiError(await create(body), 422, "validation_failed");
  });

  it("without an Idempotency-Key answers 422 naming the header", async () => {
    const res = await h.request("POST", "/v1/sessions", { body: {} });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([expect.objectContaining({ location: "header", path: "Idempotency-Key" })]);
  });

  it("lists every problem of the body with its location, path and message", async () => {
    const error = await expectApiError(await create({ participant_identity: "", tags: [1] }), 422, "validation_failed");
    expect(error.detail).toEqual(
      expect.arrayContaining([
        { location: "body", path: "participant_identity", message: expect.any(String) },
        { location: "body", path: "tags.0", message: expect.any(String) },
      ]),
    );
  });

  const raw: [string, string, Record<string, string>][] = [
    ["malformed JSON", "{", {}],
    ["a JSON string", '"hello"', {}],
    ["a JSON array", "[]", {}],
    ["a JSON null", "null", {}],
    ["a body that is not JSON", "participant_identity=x", { "Content-Type": "application/x-www-form-urlencoded" }],
  ];
  it.each(raw)("%s answers 422 validation_failed", async (_name, body, headers) => {
    const res = await h.request("POST", "/v1/sessions", { raw: body, headers: { "Idempotency-Key": crypto.randomUUID(), ...headers } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(Array.isArray(error.detail)).toBe(true);
  });

  it("without any body answers 201, as for {}", async () => {
    const res = await h.request("POST", "/v1/sessions", { headers: { "Idempotency-Key": crypto.randomUUID() } });
    expect(res.status).toBe(201);
  });

  it("answers 413 payload_too_large for a body over 64 KiB", async () => {
    await expectApiError(await create({ metadata: { blob: "x".repeat(64 * 1024) } }), 413, "payload_too_large");
  });

  it("accepts a body just under 64 KiB", async () => {
    expect((await create({ metadata: { blob: "x".repeat(64 * 1024 - 100) } })).response.status).toBe(201);
  });
});

describe("POST /v1/sessions, when LiveKit is unavailable", () => {
  it.each([
    ["answers 503", "fail"],
    ["stops answering", "hang"],
  ] as const)("when LiveKit %s, answers 503 with Retry-After, keeps nothing, and the same key succeeds later", async (_name, mode) => {
    const idempotencyKey = crypto.randomUUID();
    h.livekit.mode = mode;
    const answer = await create({ participant_identity: "u" }, { idempotencyKey });
    const error = await expectApiError(answer, 503, "service_unavailable");
    expect(error.detail).toMatch(/LiveKit/);
    expect(answer.response.headers.get("Retry-After")).toBe("1");
    h.livekit.mode = "ok";
    const retry = await create({ participant_identity: "u" }, { idempotencyKey });
    expect(retry.response.status).toBe(201);
    expect(retry.response.headers.get("Idempotent-Replayed")).toBeNull();
  });
});

describe("POST /v1/sessions, authentication", () => {
  it("without a key answers 401 before looking at the body", async () => {
    const res = await h.request("POST", "/v1/sessions", { key: null, raw: "{", headers: { "Idempotency-Key": "" } });
    await expectApiError(res, 401, "unauthorized");
  });

  it("with a read-only key answers 403 naming sessions:write, before validating", async () => {
    const res = await h.request("POST", "/v1/sessions", { key: KEYS.aRead, raw: "{" });
    const error = await expectApiError(res, 403, "forbidden");
    expect(error.detail).toEqual({ missing_scope: "sessions:write" });
  });
});
