/**
 * Idempotent creates through the client, each with the Idempotency-Key the test names: replays, a key
 * reused with another body, locks left by a dead request, failures that record nothing, and a room
 * LiveKit made after the create had given up (creates in flight: idempotency-in-flight.test.ts). One raw
 * pair of requests sends the same body spelled two ways, which no client does.
 */
import type { SessionCreate } from "@dhs/client";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/domain/sessions/idempotency.js";
import { expectApiError, expectData, KEYS, tokenVerifier, useHarness } from "../support/harness.js";

// The shortest lock the configuration allows, so a test can watch one expire.
const h = useHarness({ IDEMPOTENCY_LOCK_TTL_S: "1", LIVEKIT_TIMEOUT_MS: "300", REDIS_COMMAND_TIMEOUT_MS: "200" });

/** A create with the Idempotency-Key given (the client's own otherwise), with account A's read-write key unless another is given. */
const create = (body: unknown, options: { idempotencyKey?: string; key?: string } = {}) =>
  h
    .client(options.key)
    .createSession(body as SessionCreate, options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey });

describe("POST /v1/sessions, when the same key is sent again with the same body", () => {
  it("answers 201 with the same session, Idempotent-Replayed: true and a valid token, and creates no second room", async () => {
    const idempotencyKey = crypto.randomUUID();
    const body = { participant_identity: "replayer", tags: ["x"], metadata: { a: 1, b: [true, null] } };
    const first = expectData(await create(body, { idempotencyKey }), 201);
    const answer = await create(body, { idempotencyKey });
    const replay = expectData(answer, 201);
    expect(answer.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect({ ...replay, participant_token: undefined }).toEqual({ ...first, participant_token: undefined });
    const claims = await tokenVerifier.verify(replay.participant_token as string);
    expect(claims).toMatchObject({ sub: "replayer", video: { room: first.room_name } });
    expect(h.livekit.callsOf("CreateRoom")).toHaveLength(1);
  });

  // Raw: the same JSON spelled two ways.
  it("replays when only the order of keys or the whitespace differs (RFC 8785 fingerprint)", async () => {
    const idempotencyKey = crypto.randomUUID();
    const first = await h.request("POST", "/v1/sessions", {
      raw: '{"participant_identity":"o","metadata":{"b":2,"a":1}}',
      headers: { "Idempotency-Key": idempotencyKey },
    });
    const second = await h.request("POST", "/v1/sessions", {
      raw: '{ "metadata": { "a": 1.0, "b": 2 },\n  "participant_identity": "o" }',
      headers: { "Idempotency-Key": idempotencyKey },
    });
    expect(second.status).toBe(201);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await second.json()).id).toBe((await first.json()).id);
  });

  it("replays for any key of the same account", async () => {
    const idempotencyKey = crypto.randomUUID();
    const first = expectData(await create({}, { idempotencyKey, key: KEYS.a }), 201);
    const answer = await create({}, { idempotencyKey, key: KEYS.aOther });
    expect(answer.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(answer.data?.id).toBe(first.id);
  });
});

describe("POST /v1/sessions, when the key is reused with another body", () => {
  it("answers 409 idempotency_key_reused and creates nothing", async () => {
    const idempotencyKey = crypto.randomUUID();
    await create({ participant_identity: "one" }, { idempotencyKey });
    await expectApiError(await create({ participant_identity: "two" }, { idempotencyKey }), 409, "idempotency_key_reused");
    expect(h.livekit.callsOf("CreateRoom")).toHaveLength(1);
  });
});

describe("POST /v1/sessions, keys of different accounts", () => {
  it("never collide: the same key in another account creates that account's own session", async () => {
    const idempotencyKey = crypto.randomUUID();
    const a = expectData(await create({}, { idempotencyKey, key: KEYS.a }), 201);
    const answer = await create({ participant_identity: "b" }, { idempotencyKey, key: KEYS.b });
    const b = expectData(answer, 201);
    expect(answer.response.headers.get("Idempotent-Replayed")).toBeNull();
    expect(b.id).not.toBe(a.id);
  });
});

describe("POST /v1/sessions, a lock left by a request that died", () => {
  it("blocks the key only until the lock expires", async () => {
    const idempotencyKey = crypto.randomUUID();
    const body = {};
    // What a process killed between claiming the key and finishing leaves behind.
    await h.composed.store.beginCreate("acct_a", idempotencyKey, fingerprint(body), {
      lockTtlMs: 1000,
      keyTtlMs: 60_000,
      maxOpen: 100_000,
      createdAtMs: Date.now(),
    });
    await expectApiError(await create(body, { idempotencyKey }), 409, "idempotency_request_in_progress");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const answer = await create(body, { idempotencyKey });
    expect(answer.response.status).toBe(201);
    expect(answer.response.headers.get("Idempotent-Replayed")).toBeNull();
  });
});

describe("POST /v1/sessions, failures record nothing", () => {
  it.each([
    ["a validation failure", async (k: string) => create({ tags: [1] }, { idempotencyKey: k }), 422],
    ["an unknown key", async (k: string) => create({}, { idempotencyKey: k, key: "dhs_nope" }), 401],
    ["a read-only key", async (k: string) => create({}, { idempotencyKey: k, key: KEYS.aRead }), 403],
    [
      "LiveKit being down",
      async (k: string) => {
        h.livekit.mode = "fail";
        const answer = await create({}, { idempotencyKey: k });
        h.livekit.mode = "ok";
        return answer;
      },
      503,
    ],
  ] as const)("after %s the key creates a new session", async (_name, fail, status) => {
    const idempotencyKey = crypto.randomUUID();
    expect((await fail(idempotencyKey)).response.status).toBe(status);
    const answer = await create({}, { idempotencyKey });
    expect(answer.response.status).toBe(201);
    expect(answer.response.headers.get("Idempotent-Replayed")).toBeNull();
  });
});

describe("POST /v1/sessions, when LiveKit made the room but answered after LIVEKIT_TIMEOUT_MS", () => {
  it("answers 503, and the retry with the same key continues that session in that room: one room, one digital human", async () => {
    const idempotencyKey = crypto.randomUUID();
    h.livekit.answerLateMs = 1500;
    const failed = await create({ participant_identity: "late-1" }, { idempotencyKey });
    h.livekit.answerLateMs = 0;
    await expectApiError(failed, 503, "service_unavailable");
    expect(h.livekit.rooms.size).toBe(1);
    const [halfMade] = [...h.livekit.rooms];

    const session = expectData(await create({ participant_identity: "late-1" }, { idempotencyKey }), 201);
    expect(session.room_name).toBe(halfMade);
    expect([...h.livekit.rooms]).toEqual([halfMade]);
    expect(h.livekit.dispatches.get(halfMade as string)).toHaveLength(1);
  });

  it("a retry with another body under that key makes a session of its own", async () => {
    const idempotencyKey = crypto.randomUUID();
    h.livekit.answerLateMs = 1500;
    await expectApiError(await create({ participant_identity: "late-2" }, { idempotencyKey }), 503, "service_unavailable");
    h.livekit.answerLateMs = 0;
    const other = expectData(await create({ participant_identity: "late-3" }, { idempotencyKey }), 201);
    expect(h.livekit.rooms.size).toBe(2);
    expect(h.livekit.rooms.has(other.room_name)).toBe(true);
  });
});
