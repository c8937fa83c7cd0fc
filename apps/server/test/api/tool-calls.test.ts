/**
 * Tools (contract guide, "Tools"): a digital human's tools, checked and kept by its sessions; the digital
 * human's runToolCall, which posts a webhook tool's call to the customer's endpoint signed as events are
 * and records it at most once per call id; listSessionToolCalls; the session.tool_called event; the
 * end_session tool; and the test helper callTestTool.
 */
import { randomUUID } from "node:crypto";
import { verifyToolCall } from "@dhs/client";
import { digitalHumanToken, WebhookReceiver } from "@dhs/testkit";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, STORE, until, useHarness } from "../support/harness.js";
import { metric } from "../support/metrics.js";

const h = useHarness({ SWEEP_INTERVAL_MS: "100", TEST_MAX_OPEN_SESSIONS: "100" });
const [AVA] = DIGITAL_HUMANS;
const receiver = new WebhookReceiver();
const events = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  await events.start();
});
afterAll(async () => {
  await receiver.stop();
  await events.stop();
});
beforeEach(() => {
  receiver.answer = () => ({ status: 200, body: JSON.stringify({ result: { status: "shipped", arrives: "Thursday" } }) });
});

type Session = { id: string; room_name: string; participant_identity: string };
type Call = { id: string; name: string; type: string; arguments: unknown; status: string; result: unknown; error: string | null };

const ORDER_PARAMETERS = {
  type: "object",
  properties: { order_id: { type: "string", description: "The order's id." } },
  required: ["order_id"],
};

const made = new Map<string, string>();
/** An endpoint of the key's account and mode (one each: an account has ten at most), its secret given to the receiver. */
async function endpoint(key: string = KEYS.aHooks, at: WebhookReceiver = receiver, eventTypes?: string[]): Promise<string> {
  const known = made.get(`${key}|${at.url}`);
  if (known) return known;
  const created = expectData(
    await h.client(key).createWebhookEndpoint({ url: at.url, ...(eventTypes ? { event_types: eventTypes as never } : {}) }),
    201,
  );
  at.secrets = [...at.secrets, created.secret ?? ""];
  made.set(`${key}|${at.url}`, created.id);
  return created.id;
}

/** A digital human with an order_status webhook tool, a show_room client tool and an end_call tool. */
async function concierge(endpointId: string, key: string = KEYS.aPersonas, timeoutMs = 2_000) {
  return expectData(
    await h.client(key).createDigitalHuman({
      name: "Maya",
      appearance: AVA.id,
      tools: [
        {
          type: "webhook",
          name: "order_status",
          description: "Looks up an order.",
          parameters: ORDER_PARAMETERS,
          endpoint_id: endpointId,
          timeout_ms: timeoutMs,
        },
        { type: "client", name: "show_room", description: "Shows a room on the page." },
        { type: "end_session", name: "end_call" },
      ],
    }),
    201,
  );
}

async function sessionOf(digitalHumanId: string, key: string = KEYS.a): Promise<Session> {
  const participant = `user-${randomUUID().slice(0, 8)}`;
  const made = expectData(await h.client(key).createSession({ digital_human_id: digitalHumanId, participant_identity: participant }), 201);
  return { ...made, participant_identity: participant };
}

/** The digital human's runToolCall, with a token for `as`'s room, signed for `identity`. */
async function run(session: Session, body: Record<string, unknown>, as: Session = session, identity = "agent-AJ_one"): Promise<Response> {
  const token = await digitalHumanToken(as.room_name, { identity });
  return fetch(`${h.url}/v1/sessions/${session.id}/conversation/tool-calls`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ participant_identity: identity, ...body }),
  });
}
async function ran(session: Session, body: Record<string, unknown>): Promise<Call> {
  const res = await run(session, body);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Call;
}
const callsTo = (callId: string) => receiver.received.filter((r) => r.body.data?.tool_call_id === callId);
const listCalls = async (session: Session, key: string = KEYS.a) => expectData(await h.client(key).listSessionToolCalls(session.id)).data;

describe("a digital human's tools", () => {
  it("are answered with their defaults filled, and reach its sessions' job in the dispatch", async () => {
    const dh = await concierge(await endpoint());
    expect(dh.tools).toEqual([
      expect.objectContaining({ type: "webhook", name: "order_status", parameters: ORDER_PARAMETERS, timeout_ms: 2_000 }),
      {
        type: "client",
        name: "show_room",
        description: "Shows a room on the page.",
        parameters: { type: "object", properties: {} },
        timeout_ms: 5_000,
      },
      { type: "end_session", name: "end_call", description: expect.stringContaining("goodbye") },
    ]);
    const session = await sessionOf(dh.id);
    const [created] = h.livekit.callsOf("CreateRoom").filter((call) => call.body.name === session.room_name);
    const job = JSON.parse(created?.body.agents[0].metadata);
    expect(job.digital_human.tools).toEqual(dh.tools);
    expect(JSON.stringify(job)).not.toContain("whsec_");
  });

  it("are refused with 422 naming the path: a name twice, parameters that are not an object schema, too deep, unknown keywords", async () => {
    const id = await endpoint();
    const deep: Record<string, unknown> = { type: "string" };
    let nested = deep;
    for (let i = 0; i < 9; i++) nested = { type: "object", properties: { x: nested } };
    const res = await h.request("POST", "/v1/digital-humans", {
      key: KEYS.aPersonas,
      headers: { "Idempotency-Key": randomUUID() },
      body: {
        name: "Bad",
        tools: [
          { type: "client", name: "same", description: "One." },
          { type: "client", name: "same", description: "Two.", parameters: { type: "array" } },
          { type: "client", name: "deep", description: "Deep.", parameters: nested },
          { type: "webhook", name: "odd", description: "Odd.", endpoint_id: id, parameters: { type: "object", propertees: {} } },
        ],
      },
    });
    const paths = ((await expectApiError(res, 422, "validation_failed")).detail as { path: string }[]).map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "tools.1.name",
        "tools.1.parameters.type",
        "tools.3.parameters.propertees",
        expect.stringMatching(/^tools\.2\.parameters/),
      ]),
    );
  });

  it("are refused by the contract: a bad name, a timeout out of range, more than 16", async () => {
    const bad = async (tools: unknown[]) =>
      expectApiError(
        await h.request("POST", "/v1/digital-humans", {
          key: KEYS.aPersonas,
          headers: { "Idempotency-Key": randomUUID() },
          body: { name: "B", tools },
        }),
        422,
        "validation_failed",
      );
    await bad([{ type: "client", name: "1st", description: "x" }]);
    await bad([{ type: "client", name: "ok", description: "x", timeout_ms: 100 }]);
    await bad(Array.from({ length: 17 }, (_, i) => ({ type: "end_session", name: `t${i}` })));
  });

  it("refuse an endpoint of another account, or of the other mode, exactly like one that does not exist", async () => {
    const others = [await endpoint(KEYS.bHooks), await endpoint(KEYS.aTest), "we_000000000000000000000000"];
    const messages = [];
    for (const id of others) {
      const res = await h.request("POST", "/v1/digital-humans", {
        key: KEYS.aPersonas,
        headers: { "Idempotency-Key": randomUUID() },
        body: { name: "X", tools: [{ type: "webhook", name: "t", description: "d", endpoint_id: id }] },
      });
      messages.push((await expectApiError(res, 422, "validation_failed")).detail);
    }
    expect(messages[0]).toEqual(messages[2]);
    expect(messages[1]).toEqual(messages[2]);
  });

  it("are replaced whole by an update, cleared by null, and a session keeps the ones it was created with", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    expect(expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(dh.id, { tools: null })).tools).toEqual([]);
    const call = await ran(session, { tool_call_id: `call_${randomUUID()}`, name: "order_status", arguments: { order_id: "A-1" } });
    expect(call.status).toBe("succeeded");
  });
});

describe("runToolCall with a webhook tool", () => {
  it("posts the call signed as events are, verifiable with @dhs/client, and records what the endpoint answered", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const id = `call_${randomUUID()}`;
    const call = await ran(session, { tool_call_id: id, name: "order_status", arguments: { order_id: "A-1042" } });
    expect(call).toMatchObject({ id, name: "order_status", type: "webhook", status: "succeeded", error: null });
    expect(call.result).toEqual({ status: "shipped", arrives: "Thursday" });
    const [delivery] = callsTo(id);
    expect(delivery?.verifiedWith).toBeGreaterThanOrEqual(0);
    const verified = verifyToolCall(
      delivery?.raw ?? "",
      delivery?.headers as Record<string, string>,
      receiver.secrets[delivery?.verifiedWith ?? 0] ?? "",
    );
    expect(verified).toEqual({
      type: "session.tool_call",
      mode: "live",
      timestamp: expect.any(String),
      data: {
        tool_call_id: id,
        session_id: session.id,
        digital_human_id: dh.id,
        participant_identity: session.participant_identity,
        name: "order_status",
        arguments: { order_id: "A-1042" },
      },
    });
    expect(await listCalls(session)).toEqual([expect.objectContaining({ id, status: "succeeded", duration_ms: expect.any(Number) })]);
  });

  it("never calls the endpoint twice for one call id: a repeat, and repeats while it runs, answer the recorded call", async () => {
    receiver.answer = () => ({ status: 200, body: JSON.stringify({ result: "booked" }), delayMs: 400 });
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const id = `call_${randomUUID()}`;
    const body = { tool_call_id: id, name: "order_status", arguments: { order_id: "A-7" } };
    const answers = await Promise.all([ran(session, body), ran(session, body), ran(session, body)]);
    expect(answers.map((a) => [a.status, a.result])).toEqual([
      ["succeeded", "booked"],
      ["succeeded", "booked"],
      ["succeeded", "booked"],
    ]);
    expect(await ran(session, body)).toEqual(answers[0]);
    expect(callsTo(id)).toHaveLength(1);
    expect(await listCalls(session)).toHaveLength(1);
  });

  it("refuses the same call id with other arguments (409 tool_call_id_reused)", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const id = `call_${randomUUID()}`;
    await ran(session, { tool_call_id: id, name: "order_status", arguments: { order_id: "A-1" } });
    await expectApiError(
      await run(session, { tool_call_id: id, name: "order_status", arguments: { order_id: "A-2" } }),
      409,
      "tool_call_id_reused",
    );
  });

  it.each([
    {
      what: "an error for the LLM",
      answer: { status: 200, body: JSON.stringify({ error: "No order A-9." }) },
      status: "failed",
      reason: "No order A-9.",
    },
    { what: "another status", answer: { status: 500 }, status: "failed", reason: "HTTP 500" },
    { what: "a body that is not JSON", answer: { status: 200, body: "ok" }, status: "failed", reason: "not JSON" },
    { what: "JSON without result or error", answer: { status: 200, body: "{}" }, status: "failed", reason: 'without "result"' },
    {
      what: "more than 16 KiB",
      answer: { status: 200, body: JSON.stringify({ result: "x".repeat(17_000) }) },
      status: "failed",
      reason: "more than 16384 bytes",
    },
    {
      what: "a redirect (not followed)",
      answer: { status: 307, headers: { location: "http://127.0.0.1:1/" } },
      status: "failed",
      reason: "HTTP 307",
    },
    {
      what: "nothing within the timeout",
      answer: { status: 200, body: "{}", delayMs: 1_500 },
      status: "timed_out",
      reason: "within 1000 ms",
    },
  ])("records an endpoint that answers $what as $status, with the reason the LLM is given", async ({ answer, status, reason }) => {
    receiver.answer = () => answer;
    const dh = await concierge(await endpoint(), KEYS.aPersonas, 1_000);
    const session = await sessionOf(dh.id);
    const call = await ran(session, { tool_call_id: `call_${randomUUID()}`, name: "order_status", arguments: { order_id: "A-1" } });
    expect(call.status).toBe(status);
    expect(call.error).toContain(reason);
    expect(call.result).toBeNull();
  });

  it("fails without calling anyone when the endpoint was disabled or deleted since", async () => {
    const endpointId = expectData(await h.client(KEYS.aHooks).createWebhookEndpoint({ url: receiver.url }), 201).id;
    const dh = await concierge(endpointId);
    const session = await sessionOf(dh.id);
    await h.client(KEYS.aHooks).deleteWebhookEndpoint(endpointId);
    const id = `call_${randomUUID()}`;
    const call = await ran(session, { tool_call_id: id, name: "order_status", arguments: { order_id: "A-1" } });
    expect(call).toMatchObject({ status: "failed", error: "The tool's webhook endpoint no longer exists." });
    expect(callsTo(id)).toEqual([]);
  });

  it("sends session.tool_called to the endpoints that take it, once the call ended", async () => {
    await endpoint(KEYS.aHooks, events, ["session.tool_called"]);
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const id = `call_${randomUUID()}`;
    await ran(session, { tool_call_id: id, name: "order_status", arguments: { order_id: "A-1" } });
    const [event] = await until(() => {
      const got = events.of("session.tool_called").filter((r) => r.body.data.tool_call.id === id);
      return got.length > 0 ? got : undefined;
    });
    expect(event?.body.data).toEqual({ session_id: session.id, tool_call: expect.objectContaining({ id, status: "succeeded" }) });
  });
});

describe("runToolCall's refusals", () => {
  it("refuses a name that is not a tool of the session's digital human, and a wrong outcome for the tool's type", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const call = (body: Record<string, unknown>) => run(session, { tool_call_id: `call_${randomUUID()}`, arguments: {}, ...body });
    await expectApiError(await call({ name: "launch" }), 422, "validation_failed");
    await expectApiError(await call({ name: "show_room" }), 422, "validation_failed");
    await expectApiError(await call({ name: "order_status", outcome: { status: "succeeded", duration_ms: 1 } }), 422, "validation_failed");
  });

  it("refuses a token for another room or another identity (401)", async () => {
    const dh = await concierge(await endpoint());
    const [mine, other] = [await sessionOf(dh.id), await sessionOf(dh.id)];
    const body = {
      tool_call_id: `call_${randomUUID()}`,
      name: "end_call",
      arguments: {},
      outcome: { status: "succeeded", duration_ms: 1 },
    };
    await expectApiError(await run(mine, body, other), 401, "unauthorized");
    const token = await digitalHumanToken(mine.room_name, { identity: "agent-other" });
    const res = await fetch(`${h.url}/v1/sessions/${mine.id}/conversation/tool-calls`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ participant_identity: "agent-AJ_one", ...body }),
    });
    await expectApiError(res, 401, "unauthorized");
    expect(await listCalls(mine)).toEqual([]);
  });

  it("refuses a new call on an ended session (409 session_ended) and still answers one recorded before", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const before = { tool_call_id: `call_${randomUUID()}`, name: "order_status", arguments: { order_id: "A-1" } };
    const recorded = await ran(session, before);
    await h.client().endSession(session.id);
    expect(await ran(session, before)).toEqual(recorded);
    const after = { tool_call_id: `call_${randomUUID()}`, name: "order_status", arguments: { order_id: "A-1" } };
    await expectApiError(await run(session, after), 409, "session_ended");
  });

  it("takes at most 100 calls a session (409 tool_calls_limit_reached)", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const outcome = { status: "succeeded", result: "shown", duration_ms: 3 };
    for (let i = 0; i < 100; i++) await ran(session, { tool_call_id: `call_${i}`, name: "show_room", arguments: { i }, outcome });
    const res = await run(session, { tool_call_id: "call_100", name: "show_room", arguments: {}, outcome });
    expect((await expectApiError(res, 409, "tool_calls_limit_reached")).detail).toEqual({ limit: 100 });
    expect(await listCalls(session)).toHaveLength(100);
  });
});

describe("client and end_session tools", () => {
  it("record the job's outcome of a client tool as it was posted", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const call = await ran(session, {
      tool_call_id: "call_page",
      name: "show_room",
      arguments: { room: "sea view" },
      outcome: { status: "timed_out", error: "The page did not answer.", duration_ms: 5_000 },
    });
    expect(call).toMatchObject({ type: "client", status: "timed_out", error: "The page did not answer.", duration_ms: 5_000 });
  });

  it("end the session, completed with digital_human_ended, once the end_session call is recorded", async () => {
    const dh = await concierge(await endpoint(KEYS.aTest), KEYS.aTest);
    const session = await sessionOf(dh.id, KEYS.aTest);
    const test = h.client(KEYS.aTest);
    await test.sendTestSessionEvent(session.id, { type: "digital_human_joined" });
    expect(expectData(await test.sendTestSessionEvent(session.id, { type: "participant_joined" })).status).toBe("active");
    await ran(session, { tool_call_id: "call_bye", name: "end_call", arguments: {}, outcome: { status: "succeeded", duration_ms: 2_100 } });
    expect(expectData(await test.getSession(session.id)).status).toBe("completed");
    const [summary] = expectData(await test.listSessions({ limit: 1 })).data;
    expect(summary).toMatchObject({ id: session.id, end_reason: "digital_human_ended" });
  });
});

describe("listSessionToolCalls", () => {
  it("answers another account's session 404, and needs sessions:read", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    await expectApiError(await h.request("GET", `/v1/sessions/${session.id}/tool-calls`, { key: KEYS.b }), 404, "not_found");
    await expectApiError(await h.request("GET", `/v1/sessions/${session.id}/tool-calls`, { key: KEYS.aWrite }), 403, "forbidden");
  });
});

describe("callTestTool", () => {
  it("calls a test session's webhook tool as its digital human would, and records it, counted by type and status", async () => {
    const dh = await concierge(await endpoint(KEYS.aTest), KEYS.aTest);
    const session = await sessionOf(dh.id, KEYS.aTest);
    const counted = () => metric(h.metricsUrl, 'dhs_tool_call_duration_seconds_count{type="webhook",status="succeeded"}');
    const before = await counted();
    const call = expectData(await h.client(KEYS.aTest).callTestTool(session.id, { name: "order_status", arguments: { order_id: "T-1" } }));
    expect(call).toMatchObject({
      id: expect.stringMatching(/^call_test_[0-9a-f]{24}$/),
      status: "succeeded",
      result: { status: "shipped", arrives: "Thursday" },
    });
    const [delivery] = callsTo(call.id);
    expect(delivery?.body).toMatchObject({ type: "session.tool_call", mode: "test", data: { arguments: { order_id: "T-1" } } });
    expect(delivery?.verifiedWith).toBeGreaterThanOrEqual(0);
    expect(expectData(await h.client(KEYS.aTest).listSessionToolCalls(session.id)).data).toEqual([call]);
    expect((await counted()) - before).toBe(1);
  });

  it("refuses a live key (403 test_key_required), a tool that is not a webhook tool (422), an ended session (409)", async () => {
    const dh = await concierge(await endpoint(KEYS.aTest), KEYS.aTest);
    const session = await sessionOf(dh.id, KEYS.aTest);
    const post = (key: string, body: unknown) => h.request("POST", `/v1/test-helpers/sessions/${session.id}/tool-calls`, { key, body });
    await expectApiError(await post(KEYS.a, { name: "order_status" }), 403, "test_key_required");
    await expectApiError(await post(KEYS.aTest, { name: "end_call" }), 422, "validation_failed");
    await h.client(KEYS.aTest).endSession(session.id);
    await expectApiError(await post(KEYS.aTest, { name: "order_status" }), 409, "session_ended");
  });
});

describe("an endpoint's hostile answer", () => {
  /** The calls of `session` as the PostgreSQL history holds them, once the writer has the session. */
  async function inHistory(session: Session): Promise<unknown[]> {
    const db = new pg.Client({ connectionString: h.databaseUrl });
    db.on("error", () => undefined);
    await db.connect();
    try {
      return await until(
        async () => {
          const written = await db.query("SELECT 1 FROM sessions WHERE id = $1", [session.id]);
          if (written.rowCount === 0) return undefined;
          const { rows } = await db.query<{ record: unknown }>("SELECT record FROM tool_calls WHERE session_id = $1 ORDER BY position", [
            session.id,
          ]);
          return rows.map((row) => row.record);
        },
        { what: "the session in the history", timeoutMs: 15_000 },
      );
    } finally {
      await db.end();
    }
  }

  it("keeps NUL and lone surrogates out of what is kept (U+FFFD), so the ended session still reaches the history", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    const answers = ['{"result":"a\\u0000b"}', '{"result":{"k\\ud800":"\\ud800"}}', '{"error":"sorry \\udc00"}'];
    const calls: Call[] = [];
    for (const body of answers) {
      receiver.answer = () => ({ status: 200, body });
      calls.push(await ran(session, { tool_call_id: `call_${randomUUID()}`, name: "order_status", arguments: { order_id: "A-1" } }));
    }
    expect(calls.map((c) => [c.status, c.result, c.error])).toEqual([
      ["succeeded", "a\uFFFDb", null],
      ["succeeded", { "k\uFFFD": "\uFFFD" }, null],
      ["failed", null, "sorry \uFFFD"],
    ]);
    await h.client().endSession(session.id);
    if (STORE === "memory") return;
    const kept = (await inHistory(session)) as Call[];
    expect(kept.map((c) => c.status)).toEqual(["succeeded", "succeeded", "failed"]);
  });

  it("is the endpoint's error when it nests 5 000 deep: the call fails saying so, never the service's 500", async () => {
    const dh = await concierge(await endpoint());
    const session = await sessionOf(dh.id);
    receiver.answer = () => ({ status: 200, body: `{"result":${"[".repeat(5000)}${"]".repeat(5000)}}` });
    const call = await ran(session, { tool_call_id: `call_${randomUUID()}`, name: "order_status", arguments: { order_id: "A-1" } });
    expect([call.status, call.error]).toEqual(["failed", "The tool's endpoint answered JSON nested more than 32 levels deep."]);
    expect((await listCalls(session)).map((c) => c.status)).toEqual(["failed"]);
  });
});
