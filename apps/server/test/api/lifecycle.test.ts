/**
 * A session's life: LiveKit's signed webhooks (sent raw, as LiveKit sends them: the client has no such
 * operation), endSession, token refreshes, the list, the timers and the room reconciler, each read back
 * through the client. Raw requests for query strings no client would build.
 */
import type { SessionList } from "@dhs/client";
import { afterEach, describe, expect, it } from "vitest";
import {
  expectApiError,
  expectData,
  KEYS,
  listed,
  newSession,
  roomEvent,
  signWebhook,
  tokenVerifier,
  until,
  useHarness,
} from "../support/harness.js";
import { ShiftedClock, timersAfterOf } from "../support/shifted-clock.js";

const h = useHarness();

async function endReasonOf(id: string): Promise<string | null> {
  return (await listed(h)).find((item) => item.id === id)?.end_reason ?? null;
}

describe("POST /livekit/webhook, signature", () => {
  it("answers 200 to an event LiveKit signed", async () => {
    const s = await newSession(h);
    expect((await h.webhook(roomEvent("room_started", s))).status).toBe(200);
  });

  it.each([
    ["unsigned", { authorization: null, reason: /authorization header is empty/ }],
    ["signed with another secret", { authorization: "other", reason: /signature/ }],
    ["with a tampered body", { authorization: "tampered", reason: /sha256 checksum of body does not match/ }],
    ["with an expired signature", { authorization: "expired", reason: /exp/ }],
  ] as const)(
    "answers 401 to an event %s with a detail that does not say which check failed, logs why, and changes nothing",
    async (_name, { authorization, reason }) => {
      const s = await newSession(h);
      const event = roomEvent("participant_joined", s, { identity: s.identity });
      const body = JSON.stringify(event);
      let header: string | null = null;
      if (authorization === "other") header = await signWebhook(body, { secret: "not-the-secret" });
      if (authorization === "tampered") header = await signWebhook(body.replace(s.identity, "someone-else"));
      if (authorization === "expired") header = await signWebhook(body, { ttl: -60 });
      const res = await h.webhook(event, { authorization: header, raw: body });
      const error = await expectApiError(res, 401, "unauthorized");
      expect(error.detail).toBe("Webhook not verified.");
      expect((await h.session(s.id)).status).toBe("created");
      const line = h.logs
        .map((l) => JSON.parse(l) as { request_id?: string; reason?: string })
        .find((l) => l.request_id === error.request_id);
      expect(line?.reason).toMatch(reason);
    },
  );

  it("acknowledges and ignores events about rooms it did not make", async () => {
    const ignored = async () => {
      const text = await (await fetch(`${h.metricsUrl}/metrics`)).text();
      return Number(text.match(/^dhs_webhook_events_total\{event="participant_joined",outcome="ignored"\} (\d+)/m)?.[1] ?? 0);
    };
    const before = await ignored();
    const res = await h.webhook({
      event: "participant_joined",
      id: "EV_foreign",
      room: { name: "someone-elses-room", sid: "RM_x" },
      participant: { identity: "x" },
    });
    expect(res.status).toBe(200);
    expect(await ignored()).toBe(before + 1);
    expect(h.livekit.calls).toEqual([]);
  });
});

describe("POST /livekit/webhook, whose room", () => {
  // Its own harness: the sessions it makes are not the list tests' to count.
  const w = useHarness();
  it.each([
    ["is named for another account's session while its metadata names this one", "b-name"],
    ["is named for this session while its metadata names another", "other-metadata"],
    ["is named for this session and carries no metadata", "no-metadata"],
    ["is not named by the service while its metadata names this session", "foreign-name"],
  ] as const)("%s: acknowledges a signed event, applies it to no session, and logs a warning why", async (_name, variant) => {
    const a = await newSession(w);
    const b = expectData(await w.client(KEYS.b).createSession({ participant_identity: "b-user" }), 201);
    const metadataOf = (id: string, account: string) => JSON.stringify({ session_id: id, account_id: account });
    const room = {
      "b-name": { name: b.room_name, metadata: metadataOf(a.id, "acct_a") },
      "other-metadata": { name: a.room_name, metadata: metadataOf(b.id, "acct_b") },
      "no-metadata": { name: a.room_name },
      "foreign-name": { name: "someone-elses-room", metadata: metadataOf(a.id, "acct_a") },
    }[variant];
    const res = await w.webhook({ event: "room_finished", id: `EV_${crypto.randomUUID()}`, room: { sid: "RM_x", ...room } });
    expect(res.status).toBe(200);
    expect((await w.session(a.id)).status).toBe("created");
    expect(expectData(await w.client(KEYS.b).getSession(b.id)).status).toBe("created");
    const requestId = res.headers.get("X-Request-ID");
    const line = w.logs
      .map((l) => JSON.parse(l) as { request_id?: string; level?: number; reason?: string })
      .find((l) => l.request_id === requestId);
    expect(line).toMatchObject({
      level: 40,
      reason: expect.stringMatching(/^room .* (carries the metadata of session|carries no session metadata)/),
    });
  });

  it("is named for the session and carries its metadata: applies the event to that session", async () => {
    const s = await newSession(w);
    expect((await w.webhook(roomEvent("room_finished", s))).status).toBe(200);
    expect((await w.session(s.id)).status).toBe("cancelled");
  });
});

describe("a session, as LiveKit reports its room", () => {
  it("becomes active with started_at when its participant joins, once even if the event comes twice", async () => {
    const s = await newSession(h);
    const joined = roomEvent("participant_joined", s, { identity: s.identity });
    expect((await h.webhook(joined)).status).toBe(200);
    const active = await h.session(s.id);
    expect(active).toMatchObject({ status: "active", ended_at: null });
    expect(Date.parse(active.started_at as string)).toBeGreaterThan(Date.parse(s.created_at) - 1);
    expect(active.participant_token).toBeTruthy();
    expect((await h.webhook(joined)).status).toBe(200);
    expect((await h.session(s.id)).started_at).toBe(active.started_at);
  });

  it("stays created when someone else or the digital human joins", async () => {
    const s = await newSession(h);
    await h.webhook(roomEvent("participant_joined", s, { identity: "agent-1", kind: "AGENT" }));
    await h.webhook(roomEvent("participant_joined", s, { identity: "stranger" }));
    expect((await h.session(s.id)).status).toBe("created");
    // The list shows when the digital human joined.
    const item = (await listed(h, { status: "created" })).find((i) => i.id === s.id);
    expect(Date.parse(item?.digital_human_joined_at as string)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
  });

  it("completes with room_finished after being active, and is cancelled if it never was", async () => {
    const a = await newSession(h);
    await h.webhook(roomEvent("participant_joined", a, { identity: a.identity }));
    await h.webhook(roomEvent("room_finished", a));
    expect(await h.session(a.id)).toMatchObject({ status: "completed", participant_token: null, ended_at: expect.any(String) });

    const b = await newSession(h);
    await h.webhook(roomEvent("room_finished", b));
    expect(await h.session(b.id)).toMatchObject({ status: "cancelled", started_at: null, participant_token: null });
  });

  it("is terminal for good: late and out-of-order events change nothing", async () => {
    const s = await newSession(h);
    await h.webhook(roomEvent("room_finished", s));
    const ended = await h.session(s.id);
    await h.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    await h.webhook(roomEvent("room_finished", s));
    expect(await h.session(s.id)).toEqual(ended);
  });

  it("deletes the room again when a participant joins a terminal session's room", async () => {
    const s = await newSession(h);
    await h.webhook(roomEvent("room_finished", s));
    h.livekit.rooms.add(s.room_name); // an old token brought the room back
    await h.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    expect(h.livekit.callsOf("DeleteRoom").map((c) => c.body.room)).toEqual([s.room_name]);
  });
});

describe("POST /v1/sessions/{id}/end", () => {
  it("cancels a created session with user_ended, deletes its room, and is idempotent", async () => {
    const s = await newSession(h);
    const ended = expectData(await h.client().endSession(s.id));
    expect(ended).toMatchObject({ id: s.id, status: "cancelled", participant_token: null, ended_at: expect.any(String) });
    expect(h.livekit.callsOf("DeleteRoom").map((c) => c.body.room)).toEqual([s.room_name]);
    expect(expectData(await h.client().endSession(s.id))).toEqual(ended);
    expect(h.livekit.callsOf("DeleteRoom")).toHaveLength(1);
  });

  it("completes an active session", async () => {
    const s = await newSession(h);
    await h.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    expect(expectData(await h.client().endSession(s.id)).status).toBe("completed");
  });

  it("answers 503 and leaves the session unchanged when LiveKit is down", async () => {
    const s = await newSession(h);
    h.livekit.mode = "fail";
    await expectApiError(await h.client().endSession(s.id), 503, "service_unavailable");
    h.livekit.mode = "ok";
    expect((await h.session(s.id)).status).toBe("created");
    // A room_finished afterwards is LiveKit's own doing, not this failed endSession's.
    await h.webhook(roomEvent("room_finished", s));
    expect(await endReasonOf(s.id)).toBe("room_finished");
  });

  it("records user_ended even when LiveKit's room_finished for the deleted room arrives first", async () => {
    const s = await newSession(h);
    await h.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    h.livekit.delayMs = 300;
    const ending = h.client().endSession(s.id);
    // LiveKit has the DeleteRoom and sends room_finished before answering it.
    await until(() => h.livekit.arrived.includes("DeleteRoom"));
    expect((await h.webhook(roomEvent("room_finished", s))).status).toBe(200);
    expect(expectData(await ending).status).toBe("completed");
    expect(await endReasonOf(s.id)).toBe("user_ended");
  });

  it.each([
    ["another account's session", KEYS.b, 404, "not_found"],
    ["a read-only key", KEYS.aRead, 403, "forbidden"],
  ] as const)("answers for %s %i", async (_name, key, status, code) => {
    const s = await newSession(h);
    await expectApiError(await h.client(key).endSession(s.id), status, code);
  });
});

describe("POST /v1/sessions/{id}/token", () => {
  it("answers the session with a new token while connectable", async () => {
    const s = await newSession(h);
    const refreshed = expectData(await h.client().refreshSessionToken(s.id));
    const claims = await tokenVerifier.verify(refreshed.participant_token as string);
    expect(claims).toMatchObject({ sub: s.identity, video: { room: s.room_name } });
  });

  it("answers 409 session_not_connectable once the session is terminal", async () => {
    const s = await newSession(h);
    await h.client().endSession(s.id);
    await expectApiError(await h.client().refreshSessionToken(s.id), 409, "session_not_connectable");
  });

  it("answers 404 for another account's session", async () => {
    const s = await newSession(h);
    await expectApiError(await h.client(KEYS.b).refreshSessionToken(s.id), 404, "not_found");
  });
});

describe("GET /v1/sessions", () => {
  it("pages through the account's own sessions newest first, with status filter and end reasons", async () => {
    const b = h.client(KEYS.b); // account B's sessions are made here only
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.unshift(expectData(await b.createSession({ participant_identity: `l${i}`, tags: [`t${i}`] }), 201).id);
    await b.endSession(made[0] as string);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: SessionList = expectData(await b.listSessions(cursor ? { limit: 3, cursor } : { limit: 3 }));
      expect(page.data.length).toBeLessThanOrEqual(3);
      for (const item of page.data) expect(item).not.toHaveProperty("participant_token");
      seen.push(...page.data.map((item) => item.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(made);

    const cancelled = expectData(await b.listSessions({ status: "cancelled" }));
    expect(cancelled.data).toEqual([
      expect.objectContaining({
        id: made[0],
        status: "cancelled",
        end_reason: "user_ended",
        participant_identity: "l6",
        tags: ["t6"],
        metadata: {},
      }),
    ]);
    expect(cancelled.next_cursor).toBeNull();
    const created = expectData(await b.listSessions({ status: "created", limit: 100 }));
    expect(created.data.map((item) => item.id)).toEqual(made.slice(1));
    expect(created.data[0]).toMatchObject({ end_reason: null, started_at: null, ended_at: null });
  });

  it("never lists another account's sessions", async () => {
    const s = await newSession(h);
    const other = expectData(await h.client(KEYS.b).listSessions({ limit: 100 }));
    expect(other.data.map((item) => item.id)).not.toContain(s.id);
  });

  it.each(["garbage", Buffer.from("[1,2]").toString("base64url"), Buffer.from('{"a":1}').toString("base64url")])(
    "answers 422 for the cursor %s",
    async (cursor) => {
      const error = await expectApiError(await h.client().listSessions({ cursor }), 422, "validation_failed");
      expect(error.detail).toEqual([expect.objectContaining({ location: "query", path: "cursor" })]);
    },
  );

  // Raw query strings: a client's types would not build them.
  it.each(["limit=101", "limit=0", "limit=x", "status=running", "other=1"])("answers 422 for %s", async (query) => {
    await expectApiError(await h.request("GET", `/v1/sessions?${query}`), 422, "validation_failed");
  });

  it("answers 403 for a write-only key", async () => {
    await expectApiError(await h.client(KEYS.aWrite).listSessions(), 403, "forbidden");
  });
});

describe("timers, with nobody reading the session", () => {
  // The sweeper's clock is the test's, moved past each timeout, and it fires only when a test sweeps
  // (its own interval is longer than the file): long timeouts cost nothing, and 5 s either side of a due
  // time keeps the real time between a test's steps out of the answer.
  const JOIN_S = 60;
  const MAX_S = 120;
  const MARGIN_MS = 5_000;
  const clock = new ShiftedClock();
  const t = useHarness(
    {
      SESSION_JOIN_TIMEOUT_S: String(JOIN_S),
      DIGITAL_HUMAN_JOIN_TIMEOUT_S: String(JOIN_S),
      SESSION_MAX_DURATION_S: String(MAX_S),
      SWEEP_INTERVAL_MS: "60000",
    },
    { timerClock: clock.now },
  );
  afterEach(() => clock.reset());

  const timersAfter = timersAfterOf(clock, () => t.composed.sweeper);

  async function itemOf(id: string) {
    return (await listed(t)).find((i) => i.id === id);
  }

  /** Not ended `MARGIN_MS` before `afterS`, then what it is `MARGIN_MS` after. */
  async function endedAfter(id: string, afterS: number) {
    await timersAfter(afterS * 1000 - MARGIN_MS);
    expect(await itemOf(id)).toMatchObject({ ended_at: null, end_reason: null });
    await timersAfter(2 * MARGIN_MS);
    return itemOf(id);
  }

  const roomDeleted = (room: string) => t.livekit.callsOf("DeleteRoom").some((c) => c.body.room === room);

  it("cancel a session nobody joined (join_timeout) and delete its room", async () => {
    const s = expectData(await t.client().createSession({}), 201);
    expect(await endedAfter(s.id, JOIN_S)).toMatchObject({ status: "cancelled", end_reason: "join_timeout" });
    await until(async () => roomDeleted(s.room_name));
  });

  it("fail an active session whose digital human never joined (digital_human_timeout) and delete its room", async () => {
    const s = expectData(await t.client().createSession({ participant_identity: "lonely" }), 201);
    await t.webhook(roomEvent("participant_joined", s, { identity: "lonely" }));
    expect(await endedAfter(s.id, JOIN_S)).toMatchObject({ status: "failed", end_reason: "digital_human_timeout" });
    await until(async () => roomDeleted(s.room_name));
  });

  it("complete an active session with its digital human at the maximum duration (max_duration)", async () => {
    const s = expectData(await t.client().createSession({ participant_identity: "talker" }), 201);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: "talker" }));
    expect(await endedAfter(s.id, MAX_S)).toMatchObject({ status: "completed", end_reason: "max_duration" });
    await until(async () => roomDeleted(s.room_name));
  });

  it("end a session while LiveKit refuses every call, and delete its room once LiveKit is back", async () => {
    const s = expectData(await t.client().createSession({ participant_identity: "outage" }), 201);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: "outage" }));
    t.livekit.mode = "fail";
    expect(await endedAfter(s.id, MAX_S)).toMatchObject({ status: "completed", end_reason: "max_duration" });
    // The deletion failed, and is owed: it is tried again (each retry due by now) while LiveKit stays down, and the room stays.
    const deletes = () => t.livekit.arrived.filter((m) => m === "DeleteRoom").length;
    const tried = deletes();
    await timersAfter(MARGIN_MS);
    await timersAfter(MARGIN_MS);
    expect(deletes()).toBeGreaterThanOrEqual(tried + 2);
    expect(t.livekit.rooms.has(s.room_name)).toBe(true);
    t.livekit.mode = "ok";
    await timersAfter(MARGIN_MS);
    expect(t.livekit.rooms.has(s.room_name)).toBe(false);
  });
});

describe("the room reconciler", () => {
  const r = useHarness();

  /** A room LiveKit has, as if made by a CreateRoom: with the metadata given, created ageMs ago. */
  function liveRoom(name: string, metadata: Record<string, unknown> | null, ageMs: number): void {
    r.livekit.rooms.add(name);
    r.livekit.roomInfo.set(name, { metadata: metadata ? JSON.stringify(metadata) : "", creationTimeMs: Date.now() - ageMs });
  }

  it("deletes the rooms of ended sessions and of sessions missing past the grace; keeps open sessions', new ones' and other deployments'", async () => {
    const ended = await newSession(r);
    await r.client().endSession(ended.id);
    const open = await newSession(r);
    const made = r.livekit.callsOf("CreateRoom").find((c) => c.body.name === open.room_name);
    const ours = JSON.parse(made?.body.metadata) as { deployment: string };
    // The ended session's room outlived it (a deletion lost with a process, say).
    liveRoom(ended.room_name, { session_id: ended.id, account_id: "acct_a", deployment: ours.deployment }, 600_000);
    const missing = crypto.randomUUID();
    liveRoom(`dhs-${missing}`, { session_id: missing, account_id: "acct_a", deployment: ours.deployment }, 120_000);
    const inFlight = crypto.randomUUID();
    liveRoom(`dhs-${inFlight}`, { session_id: inFlight, account_id: "acct_a", deployment: ours.deployment }, 5_000);
    const elsewhere = crypto.randomUUID();
    liveRoom(`dhs-${elsewhere}`, { session_id: elsewhere, account_id: "acct_a", deployment: "another-deployment" }, 600_000);
    liveRoom("someone-elses-room", null, 600_000);

    const result = await r.composed.reconciler.reconcile();

    expect(result).toMatchObject({ ran: true, deleted: { terminal: 1, missing: 1 } });
    expect([...r.livekit.rooms].sort()).toEqual([open.room_name, `dhs-${inFlight}`, `dhs-${elsewhere}`, "someone-elses-room"].sort());
    const metrics = await (await fetch(`${r.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^dhs_rooms_reconciled_total\{reason="terminal"\} 1$/m);
    expect(metrics).toMatch(/^dhs_rooms_reconciled_total\{reason="missing"\} 1$/m);
  });
});
