/**
 * Driving a session (contract guide, "Driving a session"): say, getUtterance, interruptSession and
 * addSessionContext with API keys (raw requests, as any backend sends them), the digital human's pull
 * and reports with its own token, and the per-turn events they cause, once each.
 */
import { randomUUID } from "node:crypto";
import { digitalHumanToken, WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveriesSettled } from "../support/deliveries.js";
import { expectApiError, KEYS, newSession, until, useHarness } from "../support/harness.js";

const h = useHarness({
  SAY_TTL_S: "2",
  SWEEP_INTERVAL_MS: "100",
  CONVERSATION_QUEUE_MAX: "4",
  CONVERSATION_CHARACTERS_PER_MINUTE: "400",
  CONVERSATION_MAX_NOTES: "3",
  TEST_MAX_OPEN_SESSIONS: "100",
});

type Session = { id: string; room_name: string };

const say = (session: Session, body: unknown, options: { key?: string; idempotencyKey?: string | null } = {}) =>
  h.request("POST", `/v1/sessions/${session.id}/say`, {
    key: options.key ?? KEYS.a,
    body,
    headers: options.idempotencyKey === null ? {} : { "Idempotency-Key": options.idempotencyKey ?? randomUUID() },
  });
const context = (session: Session, body: unknown, key: string = KEYS.a) =>
  h.request("POST", `/v1/sessions/${session.id}/context`, { key, body, headers: { "Idempotency-Key": randomUUID() } });
const utterance = (session: Session, id: string, key: string = KEYS.a) => h.request("GET", `/v1/sessions/${session.id}/say/${id}`, { key });
const interrupt = (session: Session, key: string = KEYS.a) => h.request("POST", `/v1/sessions/${session.id}/interrupt`, { key });

/**
 * The digital human's calls, with a token for `as`'s room (the session's own by default), signed for the
 * identity the body names (or `signedFor`).
 */
async function job(
  session: Session,
  operation: "pull" | "reports",
  body: { participant_identity: string } & Record<string, unknown>,
  as: Session = session,
  signedFor: string = body.participant_identity,
): Promise<Response> {
  const token = await digitalHumanToken(as.room_name, { identity: signedFor });
  return fetch(`${h.url}/v1/sessions/${session.id}/conversation/${operation}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}
const pull = async (session: Session, after = 0, identity = "agent-AJ_one") => {
  const res = await job(session, "pull", { after, participant_identity: identity });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as {
    items: { seq: number; type: string; id: string; text: string; respond?: boolean }[];
    interrupt_seq: number;
    turn_events: boolean;
  };
};
const report = async (session: Session, reports: unknown[], identity = "agent-AJ_one") => {
  const res = await job(session, "reports", { participant_identity: identity, reports });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { results: { accepted: boolean }[] }).results.map((r) => r.accepted);
};
const now = () => new Date().toISOString();
const started = (id: string, text = "hello") => ({ type: "utterance_started", id, say: true, text, started_at: now() });
const ended = (id: string, interrupted = false) => ({ type: "utterance_ended", id, say: true, ended_at: now(), interrupted });
async function queued(session: Session, text: string, extra: Record<string, unknown> = {}): Promise<{ id: string; status: string }> {
  const res = await say(session, { text, ...extra });
  expect(res.status, await res.clone().text()).toBe(202);
  return res.json();
}

describe("say", () => {
  it("queues the utterance and answers it 202, queued, with when it expires", async () => {
    const session = await newSession(h);
    const res = await say(session, { text: "Your order shipped." });
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body).toMatchObject({
      session_id: session.id,
      text: "Your order shipped.",
      interrupt: false,
      status: "queued",
      delivered_at: null,
    });
    expect(body.id).toMatch(/^utt_[0-9a-f]{24}$/);
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(2000);
    expect(await (await utterance(session, body.id)).json()).toEqual(body);
  });

  it("replays the same Idempotency-Key and body, and refuses the key with another body", async () => {
    const session = await newSession(h);
    const key = randomUUID();
    const first = await say(session, { text: "Once." }, { idempotencyKey: key });
    const again = await say(session, { text: "Once.", interrupt: false }, { idempotencyKey: key });
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await again.json()).id).toBe((await first.json()).id);
    await expectApiError(await say(session, { text: "Twice." }, { idempotencyKey: key }), 409, "idempotency_key_reused");
    // A note with a say's key is another request, refused alike.
    const note = await h.request("POST", `/v1/sessions/${session.id}/context`, {
      body: { text: "Once." },
      headers: { "Idempotency-Key": key },
    });
    await expectApiError(note, 409, "idempotency_key_reused");
    expect((await pull(session)).items).toHaveLength(1);
  });

  it("requires an Idempotency-Key and text that can be said", async () => {
    const session = await newSession(h);
    await expectApiError(await say(session, { text: "hi" }, { idempotencyKey: null }), 422, "validation_failed");
    const control = await expectApiError(await say(session, { text: "bell\u0007" }), 422, "validation_failed");
    expect(control.detail[0]).toMatchObject({ location: "body", path: "text" });
    await expectApiError(await say(session, { text: " \u200b " }), 422, "validation_failed");
    await expectApiError(await say(session, { text: "x".repeat(2001) }), 422, "validation_failed");
    await expectApiError(await say(session, { text: "hi", volume: 3 }), 422, "validation_failed");
  });

  it("is another account's session's to nobody: 404, and scopes hold (403)", async () => {
    const session = await newSession(h);
    const mine = await queued(session, "Private.");
    await expectApiError(await say(session, { text: "hi" }, { key: KEYS.b }), 404, "not_found");
    await expectApiError(await utterance(session, mine.id, KEYS.b), 404, "not_found");
    await expectApiError(await interrupt(session, KEYS.b), 404, "not_found");
    await expectApiError(await context(session, { text: "hi" }, KEYS.b), 404, "not_found");
    await expectApiError(await say(session, { text: "hi" }, { key: KEYS.aRead }), 403, "forbidden");
    await expectApiError(await utterance(session, mine.id, KEYS.aWrite), 403, "forbidden");
    await expectApiError(await utterance(session, `utt_${"0".repeat(24)}`), 404, "not_found");
    // A test key is another mode's data.
    await expectApiError(await utterance(session, mine.id, KEYS.aTest), 404, "not_found");
  });

  it("refuses every conversation call on a terminal session with session_ended", async () => {
    const session = await newSession(h);
    const pending = await queued(session, "Too late.");
    await h.client().endSession(session.id);
    await expectApiError(await say(session, { text: "hi" }), 409, "session_ended");
    await expectApiError(await context(session, { text: "hi" }), 409, "session_ended");
    await expectApiError(await interrupt(session), 409, "session_ended");
    // What was still queued is shown expired at once.
    expect((await (await utterance(session, pending.id)).json()).status).toBe("expired");
  });

  it("bounds the queue (429 conversation_queue_full) and the characters a minute (429 conversation_rate_limited, Retry-After)", async () => {
    const session = await newSession(h);
    for (let i = 0; i < 4; i++) await queued(session, `line ${i}`);
    const full = await say(session, { text: "one more" });
    expect(full.headers.get("Retry-After")).toBe("1");
    expect((await expectApiError(full, 429, "conversation_queue_full")).detail).toEqual({ limit: 4 });

    const other = await newSession(h);
    await queued(other, "x".repeat(390));
    const tooMuch = await say(other, { text: "y".repeat(20) });
    const retryAfter = Number(tooMuch.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await expectApiError(tooMuch, 429, "conversation_rate_limited")).detail).toEqual({
      characters_per_minute: 400,
      retry_after_s: retryAfter,
    });
  });

  it("takes CONVERSATION_MAX_NOTES notes in all, delivered ones counted (409 conversation_notes_limit_reached: nothing to wait out), says apart", async () => {
    const session = await newSession(h);
    for (const text of ["The caller is Ines.", "She is a premium customer."]) expect((await context(session, { text })).status).toBe(202);
    // Delivered notes still count: a digital human dispatched again is handed every one.
    expect((await pull(session)).items).toHaveLength(2);
    expect((await context(session, { text: "Her order shipped." })).status).toBe(202);
    const refused = await context(session, { text: "And one more thing." });
    expect(refused.headers.get("Retry-After")).toBeNull();
    expect((await expectApiError(refused, 409, "conversation_notes_limit_reached")).detail).toEqual({ limit: 3 });
    // Utterances are not notes.
    await queued(session, "Still here.");
  });

  it("counts a note's characters with the says' in the minute's bound, and replays a note's Idempotency-Key as say does", async () => {
    const session = await newSession(h);
    const key = randomUUID();
    const send = (body: unknown) => h.request("POST", `/v1/sessions/${session.id}/context`, { body, headers: { "Idempotency-Key": key } });
    const first = await send({ text: "x".repeat(390), respond: true });
    expect(first.status).toBe(202);
    const again = await send({ text: "x".repeat(390), respond: true });
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    await expectApiError(await send({ text: "x".repeat(390) }), 409, "idempotency_key_reused");
    // The replay took no characters; the note's 390 did.
    await expectApiError(await say(session, { text: "y".repeat(20) }), 429, "conversation_rate_limited");
    expect((await say(session, { text: "y".repeat(10) })).status).toBe(202);
  });

  it("expires an utterance nobody started within SAY_TTL_S", async () => {
    const session = await newSession(h);
    const pending = await queued(session, "Anyone there?");
    await until(async () => (await (await utterance(session, pending.id)).json()).status === "expired", 8000);
    const body = await (await utterance(session, pending.id)).json();
    expect(body.ended_at).not.toBeNull();
    // Too late to start it now.
    expect(await report(session, [started(pending.id)])).toEqual([false]);
  });
});

describe("the digital human's pull and reports", () => {
  it("hands over what is queued in order, once delivered shows when, and says each utterance at most once", async () => {
    const session = await newSession(h);
    const note = await (await context(session, { text: "The caller is Ines." })).json();
    const first = await queued(session, "First.");
    const second = await queued(session, "Second.");
    const taken = await pull(session);
    expect(taken.items.map((item) => [item.seq, item.type, item.id])).toEqual([
      [1, "context", note.id],
      [2, "say", first.id],
      [3, "say", second.id],
    ]);
    expect((await (await utterance(session, first.id)).json()).delivered_at).not.toBeNull();
    expect((await pull(session, 3)).items).toEqual([]);

    expect(await report(session, [started(first.id, "First.")])).toEqual([true]);
    // The same job again is fine (a retry); another job may not say it.
    expect(await report(session, [started(first.id, "First.")])).toEqual([true]);
    expect(await report(session, [started(first.id, "First.")], "agent-AJ_two")).toEqual([false]);
    expect((await (await utterance(session, first.id)).json()).status).toBe("speaking");
    expect(await report(session, [ended(first.id)])).toEqual([true]);
    const spoken = await (await utterance(session, first.id)).json();
    expect(spoken.status).toBe("spoken");
    expect(Date.parse(spoken.ended_at)).toBeGreaterThanOrEqual(Date.parse(spoken.started_at));
  });

  it("takes only a token for the session's own room, signed for the identity it names (401 otherwise, API keys included)", async () => {
    const session = await newSession(h);
    const other = await newSession(h);
    expect((await job(session, "pull", { after: 0, participant_identity: "x" }, other)).status).toBe(401);
    // Nudges go to the identity a pull names: a token signed for another identity may not name it.
    const misnamed = await job(session, "pull", { after: 0, participant_identity: "agent-AJ_victim" }, session, "agent-AJ_holder");
    await expectApiError(misnamed, 401, "unauthorized");
    const turn = { type: "participant_turn", id: "t-1", text: "Hi.", started_at: now(), ended_at: now() };
    const report = await job(session, "reports", { participant_identity: "agent-AJ_victim", reports: [turn] }, session, "agent-AJ_holder");
    await expectApiError(report, 401, "unauthorized");
    const withKey = await h.request("POST", `/v1/sessions/${session.id}/conversation/pull`, {
      body: { after: 0, participant_identity: "x" },
    });
    await expectApiError(withKey, 401, "unauthorized");
  });

  it("checks what each report type needs (422 at its path)", async () => {
    const session = await newSession(h);
    const res = await job(session, "reports", { participant_identity: "a", reports: [{ type: "participant_turn", id: "t1", text: "hi" }] });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail.map((p: { path: string }) => p.path)).toEqual(["reports.0.started_at", "reports.0.ended_at"]);
  });

  it("nudges the job that pulled, by a LiveKit data message to it alone, when something is queued", async () => {
    const session = await newSession(h);
    await pull(session, 0, "agent-AJ_nudged");
    h.livekit.reset();
    h.livekit.rooms.add(session.room_name);
    await queued(session, "Nudge.");
    // Other tests' sessions may still be nudged late: look at this room's messages only.
    const ours = () => h.livekit.callsOf("SendData").filter((c) => c.body.room === session.room_name);
    await until(() => ours().length > 0, 3000);
    const [call] = ours();
    expect(call?.body).toMatchObject({ room: session.room_name, destinationIdentities: ["agent-AJ_nudged"], topic: "dhs.conversation" });
    expect(JSON.parse(Buffer.from(call?.body.data, "base64").toString())).toEqual({ seq: 1 });
  });

  it("interrupt stops what is said and drops what is queued; a job dispatched again never repeats its predecessor", async () => {
    const session = await newSession(h);
    const a = await queued(session, "A.");
    const b = await queued(session, "B.");
    await pull(session);
    await report(session, [started(a.id)]);
    const res = await interrupt(session);
    expect(res.status).toBe(200);
    expect((await res.json()).utterance_ids.sort()).toEqual([a.id, b.id].sort());
    expect((await (await interrupt(session)).json()).utterance_ids).toEqual([]);
    expect((await pull(session, 2)).interrupt_seq).toBe(4);
    expect(await report(session, [started(b.id)])).toEqual([false]);

    // A note delivered before is handed to the next job too, never to be answered again.
    await context(session, { text: "Order 4417 shipped.", respond: true });
    const c = await queued(session, "C.");
    await pull(session, 4);
    await report(session, [started(c.id)]);
    const next = await pull(session, 0, "agent-AJ_next");
    expect(next.items.map((item) => [item.type, item.respond])).toEqual([["context", false]]);
    expect((await (await utterance(session, c.id)).json()).status).toBe("interrupted");
  });
});

describe("a session that ended", () => {
  it("hands nothing of its conversation to its job and takes none of its reports (409 session_ended): an expired say stays expired", async () => {
    const session = await newSession(h);
    await pull(session);
    const say = await queued(session, "Too late.");
    expect((await h.client().endSession(session.id)).response.status).toBe(200);
    expect((await (await utterance(session, say.id)).json()).status).toBe("expired");

    const pulled = await job(session, "pull", { after: 0, participant_identity: "agent-AJ_one" });
    expect((await expectApiError(pulled, 409, "session_ended")).detail).toMatch(/is cancelled/);
    const reported = await job(session, "reports", { participant_identity: "agent-AJ_one", reports: [started(say.id, "Too late.")] });
    await expectApiError(reported, 409, "session_ended");
    const turn = { type: "participant_turn", id: "t-late", text: "Hello?", started_at: now(), ended_at: now() };
    await expectApiError(await job(session, "reports", { participant_identity: "agent-AJ_one", reports: [turn] }), 409, "session_ended");
    expect((await (await utterance(session, say.id)).json()).status).toBe("expired");
  });
});

describe("per-turn events", () => {
  const receiver = new WebhookReceiver();
  const lifecycle = new WebhookReceiver();
  beforeAll(async () => {
    await Promise.all([receiver.start(), lifecycle.start()]);
    for (const [r, types, key] of [
      [receiver, ["session.participant_turn", "session.utterance_started", "session.utterance_ended"], KEYS.aHooks],
      [lifecycle, ["session.ended"], KEYS.aHooks],
    ] as const) {
      const res = await h.request("POST", "/v1/webhook-endpoints", { key, body: { url: r.url, event_types: types } });
      r.secrets = [(await res.json()).secret];
    }
    const test = await h.request("POST", "/v1/webhook-endpoints", {
      key: KEYS.aTest,
      body: { url: receiver.url, event_types: ["session.participant_turn"] },
    });
    receiver.secrets.push((await test.json()).secret);
  });
  afterAll(async () => {
    await Promise.all([receiver.stop(), lifecycle.stop()]);
  });
  const of = (r: WebhookReceiver, id: string) => r.received.filter((e) => e.body.data?.session_id === id);

  it("sends each turn once, however often it is reported, and only to endpoints that take it", async () => {
    const session = await newSession(h);
    expect((await pull(session)).turn_events).toBe(true);
    const turn = { type: "participant_turn", id: "turn-1", text: "When does it arrive?", started_at: now(), ended_at: now() };
    const own = { type: "utterance_started", id: "dh-1", text: "Hello Ines.", started_at: now() };
    await report(session, [turn, own]);
    await report(session, [turn, own, { type: "utterance_ended", id: "dh-1", ended_at: now(), interrupted: true }]);
    const u = await queued(session, "Thursday.");
    await pull(session, 0);
    await report(session, [started(u.id, "Thursday."), ended(u.id)]);
    await until(() => of(receiver, session.id).length >= 5, 5000);
    await deliveriesSettled(h);
    const events = of(receiver, session.id).map((e) => [e.type, e.body.data.utterance_id ?? e.body.data.turn_id, e.body.data.status]);
    expect(events.sort()).toEqual(
      [
        ["session.participant_turn", "turn-1", undefined],
        ["session.utterance_started", "dh-1", "speaking"],
        ["session.utterance_ended", "dh-1", "interrupted"],
        ["session.utterance_started", u.id, "speaking"],
        ["session.utterance_ended", u.id, "spoken"],
      ].sort(),
    );
    const turnEvent = of(receiver, session.id).find((e) => e.type === "session.participant_turn");
    expect(turnEvent?.body).toMatchObject({ mode: "live", data: { text: "When does it arrive?", session_id: session.id } });
    expect(of(lifecycle, session.id)).toEqual([]);
  });

  it("says an expired utterance expired, in session.utterance_ended", async () => {
    const session = await newSession(h);
    const u = await queued(session, "Late.");
    await until(() => of(receiver, session.id).some((e) => e.body.data.utterance_id === u.id), 8000);
    expect(of(receiver, session.id)[0]?.body.data).toMatchObject({ source: "say", status: "expired", started_at: null });
  });

  it("the test helper's participant_turn sends the event a real turn would, test keys only", async () => {
    const created = await h.request("POST", "/v1/sessions", { key: KEYS.aTest, body: {}, headers: { "Idempotency-Key": randomUUID() } });
    const session = (await created.json()) as Session;
    const helper = (body: unknown, key: string = KEYS.aTest) =>
      h.request("POST", `/v1/test-helpers/sessions/${session.id}/events`, { key, body });
    const res = await helper({ type: "participant_turn", text: "I would like to cancel." });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).id).toBe(session.id);
    await until(() => of(receiver, session.id).length === 1, 5000);
    expect(of(receiver, session.id)[0]?.body).toMatchObject({
      type: "session.participant_turn",
      mode: "test",
      data: { text: "I would like to cancel." },
    });
    await expectApiError(await helper({ type: "participant_turn" }), 422, "validation_failed");
    await expectApiError(await helper({ type: "participant_joined", text: "hi" }), 422, "validation_failed");
    await expectApiError(await helper({ type: "participant_turn", text: "hi" }, KEYS.a), 403, "test_key_required");
  });
});
