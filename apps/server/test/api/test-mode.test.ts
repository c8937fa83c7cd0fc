/**
 * Test mode: an account's test keys and live keys share the account but never its data. Sessions,
 * idempotency keys, webhook endpoints, usage and the limit of open sessions are each mode's own; the
 * other mode's ids are answered 404, as another account's are; events go only to the endpoints of their
 * mode and say it.
 */
import { WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataOwner } from "../../src/domain/accounts/api-keys.js";
import { ENDPOINT_OPERATIONS, expectApiError, KEYS, roomEvent, until, useHarness } from "../support/harness.js";

const TEST_MAX_OPEN = 3;
const h = useHarness({ TEST_MAX_OPEN_SESSIONS: String(TEST_MAX_OPEN), SWEEP_INTERVAL_MS: "100" });
const live = { sessions: KEYS.a, hooks: KEYS.aHooks };
const test = { sessions: KEYS.aTest, hooks: KEYS.aTest };
const modes = [
  ["test", test, live],
  ["live", live, test],
] as const;

/** A client call's data, once it succeeded (any 2xx). */
function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  expect(answer.response.status, JSON.stringify(answer.error)).toBeLessThan(300);
  return answer.data as T;
}

async function create(key: string, idempotencyKey?: string) {
  return ok(
    await h.client(key).createSession({ participant_identity: "user-1", tags: ["mode"] }, idempotencyKey ? { idempotencyKey } : {}),
  );
}

describe("GET /v1/me", () => {
  it("says a test key's mode and its own limit of open sessions, in the same account", async () => {
    expect(ok(await h.client(KEYS.aTest).getPrincipal())).toMatchObject({
      key_id: "key_a_test",
      account_id: "acct_a",
      mode: "test",
      limits: { open_sessions: TEST_MAX_OPEN },
    });
    expect(ok(await h.client(KEYS.a).getPrincipal())).toMatchObject({ account_id: "acct_a", mode: "live" });
  });
});

describe.each(modes)("a %s session, seen with the other mode's key", (_mode, own, other) => {
  it("is not found by get, end or token refresh (404), is not listed, and is untouched", async () => {
    const session = await create(own.sessions);
    const theirs = h.client(other.sessions);
    await expectApiError(await theirs.getSession(session.id), 404, "not_found");
    await expectApiError(await theirs.endSession(session.id), 404, "not_found");
    await expectApiError(await theirs.refreshSessionToken(session.id), 404, "not_found");
    const listedThere = ok(await theirs.listSessions({ limit: 100 }));
    expect(listedThere.data.map((s) => s.id)).not.toContain(session.id);
    const mine = h.client(own.sessions);
    expect(ok(await mine.getSession(session.id)).status).toBe("created");
    expect(ok(await mine.listSessions({ limit: 100 })).data.map((s) => s.id)).toContain(session.id);
    ok(await mine.endSession(session.id));
  });
});

describe("POST /v1/sessions, with an Idempotency-Key used in the other mode", () => {
  it("creates a session of its own mode instead of replaying the other's", async () => {
    const key = crypto.randomUUID();
    const first = await create(KEYS.aTest, key);
    const second = await create(KEYS.a, key);
    expect(second.id).not.toBe(first.id);
    expect(ok(await h.client(KEYS.a).getSession(second.id)).id).toBe(second.id);
    for (const [session, owner] of [
      [first, KEYS.aTest],
      [second, KEYS.a],
    ] as const) {
      ok(await h.client(owner).endSession(session.id));
    }
  });
});

describe.each(modes)("a webhook endpoint registered with a %s key, seen with the other mode's key", (_mode, own, other) => {
  it("is not found by get, delete, rotate, enable, test or its deliveries (404), and is not listed", async () => {
    const endpoint = ok(await h.client(own.hooks).createWebhookEndpoint({ url: "https://hooks.example.com/dhs" }));
    for (const [_name, operation] of ENDPOINT_OPERATIONS) {
      await expectApiError(await operation(h.client(other.hooks), endpoint.id), 404, "not_found");
    }
    const listedThere = ok(await h.client(other.hooks).listWebhookEndpoints());
    expect(listedThere.data.map((e) => e.id)).not.toContain(endpoint.id);
    ok(await h.client(own.hooks).deleteWebhookEndpoint(endpoint.id));
  });
});

describe("session events", () => {
  const receivers = { test: new WebhookReceiver(), live: new WebhookReceiver() };
  beforeAll(async () => {
    await Promise.all(Object.values(receivers).map((r) => r.start()));
  });
  afterAll(async () => {
    await Promise.all(Object.values(receivers).map((r) => r.stop()));
  });

  it("reach only the endpoints of their mode, and say it", async () => {
    const endpoints: Record<string, string> = {};
    for (const [mode, keys] of [
      ["test", test],
      ["live", live],
    ] as const) {
      const endpoint = ok(await h.client(keys.hooks).createWebhookEndpoint({ url: receivers[mode].url }));
      receivers[mode].secrets = [endpoint.secret as string];
      endpoints[mode] = endpoint.id;
    }
    const testSession = await create(KEYS.aTest);
    const liveSession = await create(KEYS.a);
    // LiveKit's event for the test session's room: its metadata names the account's test side.
    await h.webhook(roomEvent("participant_joined", testSession, { identity: "user-1" }, dataOwner("acct_a", "test")));
    ok(await h.client(KEYS.aTest).endSession(testSession.id));
    ok(await h.client(KEYS.a).endSession(liveSession.id));
    const types = ["session.created", "session.active", "session.ended"];
    const gotTest = await until(() => {
      const mine = receivers.test.received.filter((r) => r.body.data?.id === testSession.id);
      return types.every((type) => mine.some((r) => r.type === type)) ? mine : undefined;
    });
    const gotLive = await until(() => {
      const mine = receivers.live.received.filter((r) => r.body.data?.id === liveSession.id);
      return mine.some((r) => r.type === "session.ended") ? mine : undefined;
    });
    expect(gotTest.every((r) => r.body.mode === "test" && r.verifiedWith === 0)).toBe(true);
    expect(gotLive.every((r) => r.body.mode === "live" && r.verifiedWith === 0)).toBe(true);
    // Give a stray delivery time to arrive, then check that none crossed.
    const testEvent = ok(await h.client(KEYS.aTest).testWebhookEndpoint(endpoints.test as string));
    expect(testEvent.mode).toBe("test");
    await until(() => receivers.test.received.some((r) => r.id === testEvent.id));
    expect(receivers.live.received.filter((r) => r.body.data?.id === testSession.id || r.body.mode === "test")).toEqual([]);
    expect(receivers.test.received.filter((r) => r.body.data?.id === liveSession.id || r.body.mode === "live")).toEqual([]);
    for (const [mode, keys] of [
      ["test", test],
      ["live", live],
    ] as const) {
      ok(await h.client(keys.hooks).deleteWebhookEndpoint(endpoints[mode] as string));
    }
  });
});

describe("GET /v1/usage", () => {
  it("counts each mode apart: live usage never includes test sessions", async () => {
    const usage = async (key: string) => ok(await h.client(key).getUsage()).totals;
    const before = { test: await usage(KEYS.aTest), live: await usage(KEYS.a) };
    const session = await create(KEYS.aTest);
    ok(await h.client(KEYS.aTest).endSession(session.id));
    const after = { test: await usage(KEYS.aTest), live: await usage(KEYS.a) };
    expect(after.test.sessions_created).toBe(before.test.sessions_created + 1);
    expect(after.live).toEqual(before.live);
  });
});

describe("the limit of open sessions", () => {
  it("is TEST_MAX_OPEN_SESSIONS for test keys, counted apart from live sessions", async () => {
    const open = async (key: string) => ok(await h.client(key).getPrincipal()).usage.open_sessions;
    const made: { id: string }[] = [];
    while ((await open(KEYS.aTest)) < TEST_MAX_OPEN) made.push(await create(KEYS.aTest));
    await expectApiError(await h.client(KEYS.aTest).createSession({}), 429, "concurrency_limit_exceeded");
    // The live side of the same account still creates.
    const liveSession = await create(KEYS.a);
    for (const [session, key] of [...made.map((s) => [s, KEYS.aTest] as const), [liveSession, KEYS.a] as const]) {
      ok(await h.client(key).endSession(session.id));
    }
  });
});
