/**
 * An account may have a limited number of sessions open (contract guide, "Accounts"): beyond it a
 * create is answered 429 concurrency_limit_exceeded with {limit, open} and no Retry-After, keeps
 * nothing, burns no idempotency key and makes no room. Exact under concurrency; a replay never counts;
 * every way a session ends frees its place at once. GET /v1/me shows the limits and the use.
 */
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, newSession, roomEvent, until, useHarness } from "../support/harness.js";

const h = useHarness(
  { ACCOUNT_MAX_OPEN_SESSIONS: "5", SESSION_JOIN_TIMEOUT_S: "2", SESSION_DEPARTURE_TIMEOUT_S: "1", SWEEP_INTERVAL_MS: "100" },
  {},
  { accounts: [{ id: "acct_b", max_open_sessions: 2 }] },
);

async function endAll(key: string = KEYS.a): Promise<void> {
  for (const status of ["created", "active"] as const) {
    const page = expectData(await h.client(key).listSessions({ status, limit: 100 }));
    await Promise.all(page.data.map((s) => h.client(key).endSession(s.id)));
  }
}

async function me(key: string = KEYS.a) {
  return expectData(await h.client(key).getPrincipal());
}

const create = (options: { key?: string; idempotencyKey?: string; tags?: string[] } = {}) =>
  h
    .client(options.key)
    .createSession(options.tags ? { tags: options.tags } : {}, options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {});

describe("POST /v1/sessions at the account's limit of open sessions, 50 at once", () => {
  // Sessions that outlive the burst: with the file's 2 s join timeout, a starved machine (a fresh-clone run
  // on two cores) took longer than that to answer the 50, the first sessions ended unjoined and their
  // places went, rightly, to later creates (8 201s).
  const burst = useHarness({ ACCOUNT_MAX_OPEN_SESSIONS: "5", SESSION_JOIN_TIMEOUT_S: "600" });

  it("50 simultaneous creates with a limit of 5 give exactly five 201s; the others 429 with {limit, open}, no Retry-After, no room", async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => burst.retryingClient().createSession({})));
    const statuses = answers.map((r) => r.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(45);
    const refused = answers.find((r) => r.response.status === 429);
    expect(refused?.response.headers.get("Retry-After")).toBeNull();
    const error = await expectApiError(refused as NonNullable<typeof refused>, 429, "concurrency_limit_exceeded");
    expect(error.detail).toEqual({ limit: 5, open: 5 });
    // No room but the five sessions': a create whose CreateRoom timed out on a starved machine is answered
    // 503 and retried with its key (retryingClient), which asks LiveKit for the same room again.
    const rooms = answers.filter((r) => r.response.status === 201).map((r) => r.data?.room_name);
    expect(new Set(burst.livekit.roomsAsked)).toEqual(new Set(rooms));
    expect(rooms).toHaveLength(5);
    expect(expectData(await burst.client().getPrincipal()).usage).toEqual({ open_sessions: 5 });
  });
});

describe("POST /v1/sessions at the account's limit of open sessions", () => {
  it("keeps the refused create's Idempotency-Key unused: the same create succeeds once a place is free", async () => {
    await endAll();
    const open = await Promise.all(Array.from({ length: 5 }, () => newSession(h)));
    const key = crypto.randomUUID();
    expect((await create({ tags: ["later"], idempotencyKey: key })).response.status).toBe(429);
    await h.client().endSession(open[0]?.id as string);
    const retried = await create({ tags: ["later"], idempotencyKey: key });
    expect(retried.response.status).toBe(201);
    expect(retried.response.headers.get("Idempotent-Replayed")).toBeNull();
    await endAll();
  });

  it("an idempotent replay never counts against the limit", async () => {
    await endAll();
    const key = crypto.randomUUID();
    const first = await create({ idempotencyKey: key });
    await Promise.all(Array.from({ length: 4 }, () => newSession(h)));
    const replay = await create({ idempotencyKey: key });
    expect(replay.response.status).toBe(201);
    expect(replay.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.data?.id).toBe(first.data?.id);
    await endAll();
  });

  it.each([
    ["endSession", async (s: { id: string }) => void (await h.client().endSession(s.id))],
    ["LiveKit closing the room", async (s: { id: string; room_name: string }) => void (await h.webhook(roomEvent("room_finished", s)))],
    ["the join timeout", async () => undefined],
    [
      "the participant leaving (departure timeout)",
      async (s: { id: string; room_name: string; identity: string }) => {
        await h.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_x" }));
        await h.webhook(roomEvent("participant_left", s, { identity: s.identity, sid: "PA_x" }));
      },
    ],
  ])("frees a place at once when a session ends by %s", async (_how, end) => {
    await endAll();
    const sessions = await Promise.all(Array.from({ length: 5 }, () => newSession(h)));
    expect((await create()).response.status).toBe(429);
    await end(sessions[0] as never);
    await until(async () => (await h.session(sessions[0]?.id as string)).ended_at !== null, { timeoutMs: 6000 });
    expect((await create()).response.status).toBe(201);
    await endAll();
  });

  it("applies the limit the keys file sets for an account (acct_b: 2)", async () => {
    await endAll(KEYS.b);
    const answers = await Promise.all(Array.from({ length: 6 }, () => create({ key: KEYS.b })));
    expect(answers.filter((r) => r.response.status === 201)).toHaveLength(2);
    expect((await me(KEYS.b)).limits.open_sessions).toBe(2);
    await endAll(KEYS.b);
  });
});

describe("GET /v1/me", () => {
  it("shows the account's limits and how many sessions are open", async () => {
    await endAll();
    await newSession(h);
    await newSession(h);
    expect(await me()).toEqual({
      key_id: "key_a",
      account_id: "acct_a",
      mode: "live",
      scopes: ["sessions:read", "sessions:write"],
      limits: { open_sessions: 5, requests_per_second: 100, burst: 200 },
      usage: { open_sessions: 2 },
    });
    await endAll();
    expect((await me()).usage.open_sessions).toBe(0);
  });
});
