/**
 * POST /v1/test-helpers/sessions/{id}/events: a test key drives a test session to every end reason the
 * contract lists that LiveKit or a timer can cause, without media, through the same transitions as
 * LiveKit's webhooks and the timers (the session's webhook events included); a live key is refused.
 */

import type { Session, TestSessionEvent } from "@dhs/client";
import { WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, until, useHarness } from "../support/harness.js";

// The product's defaults, spelled out: the helpers move time, so nothing here waits for a timer.
const JOIN_S = 600;
const DIGITAL_HUMAN_S = 30;
const DEPARTURE_S = 30;
const TEST_MAX_DURATION_S = 300;
const h = useHarness({
  SESSION_JOIN_TIMEOUT_S: String(JOIN_S),
  DIGITAL_HUMAN_JOIN_TIMEOUT_S: String(DIGITAL_HUMAN_S),
  SESSION_DEPARTURE_TIMEOUT_S: String(DEPARTURE_S),
  SESSION_MAX_DURATION_S: "1800",
  TEST_SESSION_MAX_DURATION_S: String(TEST_MAX_DURATION_S),
  TEST_MAX_OPEN_SESSIONS: "100",
  SWEEP_INTERVAL_MS: "100",
});

type Step = { type: string; seconds?: number };

async function testSession(): Promise<Session> {
  const answer = await h.client(KEYS.aTest).createSession({ participant_identity: "user-1" });
  expect(answer.response.status, JSON.stringify(answer.error)).toBe(201);
  return answer.data as Session;
}

/** An event as the test gives it: one the contract refuses is sent as given. */
function send(sessionId: string, step: Step, key: string = KEYS.aTest) {
  return h.client(key).sendTestSessionEvent(sessionId, step as TestSessionEvent);
}

async function drive(sessionId: string, steps: Step[]): Promise<Session | undefined> {
  let session: Session | undefined;
  for (const step of steps) {
    const answer = await send(sessionId, step);
    expect(answer.response.status, `${JSON.stringify(step)}: ${JSON.stringify(answer.error)}`).toBe(200);
    session = answer.data;
  }
  return session;
}

async function summary(sessionId: string): Promise<Record<string, any>> {
  const list = expectData(await h.client(KEYS.aTest).listSessions({ limit: 100 }));
  return list.data.find((s) => s.id === sessionId) ?? {};
}

describe("POST /v1/test-helpers/sessions/{id}/events, with a test key", () => {
  const dh = { type: "digital_human_joined" };
  const joined = { type: "participant_joined" };
  it.each([
    ["room_finished", "completed", [joined, { type: "room_finished" }]],
    ["join_timeout", "cancelled", [{ type: "time_passed", seconds: JOIN_S }]],
    ["max_duration", "completed", [dh, joined, { type: "time_passed", seconds: TEST_MAX_DURATION_S }]],
    ["digital_human_timeout", "failed", [joined, { type: "time_passed", seconds: DIGITAL_HUMAN_S }]],
    ["digital_human_lost", "failed", [dh, joined, { type: "digital_human_left" }, { type: "time_passed", seconds: DIGITAL_HUMAN_S }]],
    ["participant_left", "completed", [dh, joined, { type: "participant_left" }, { type: "time_passed", seconds: DEPARTURE_S }]],
  ] as const)("reaches the end reason %s (%s)", async (reason, status, steps) => {
    const session = await testSession();
    const answered = await drive(session.id, [...steps]);
    expect(answered).toMatchObject({ id: session.id, status, participant_token: null });
    expect(answered?.ended_at).not.toBeNull();
    expect(await summary(session.id)).toMatchObject({ status, end_reason: reason });
  });

  it("reaches user_ended with endSession, as any session does", async () => {
    const session = await testSession();
    await drive(session.id, [joined]);
    const ended = expectData(await h.client(KEYS.aTest).endSession(session.id));
    expect(ended.status).toBe("completed");
    expect(await summary(session.id)).toMatchObject({ end_reason: "user_ended" });
  });

  it("answers the session after the event: active once the participant joined, with a fresh token", async () => {
    const session = await testSession();
    const active = await drive(session.id, [joined]);
    expect(active).toMatchObject({ status: "active", ended_at: null });
    expect(active?.started_at).not.toBeNull();
    expect(active?.participant_token).toEqual(expect.any(String));
  });

  it("time_passed short of a timeout ends nothing, and brings it that much closer", async () => {
    const session = await testSession();
    expect(await drive(session.id, [{ type: "time_passed", seconds: JOIN_S - 10 }])).toMatchObject({ status: "created" });
    expect(await drive(session.id, [{ type: "time_passed", seconds: 10 }])).toMatchObject({ status: "cancelled" });
    expect(await summary(session.id)).toMatchObject({ end_reason: "join_timeout" });
  });

  it("a participant who leaves and comes back before the departure timeout keeps the session active", async () => {
    const session = await testSession();
    const back = await drive(session.id, [
      dh,
      joined,
      { type: "participant_left" },
      { type: "time_passed", seconds: DEPARTURE_S - 1 },
      joined,
      { type: "time_passed", seconds: DEPARTURE_S * 2 },
    ]);
    expect(back).toMatchObject({ status: "active" });
  });

  it("an event on a terminal session changes nothing and answers it as it is", async () => {
    const session = await testSession();
    const ended = await drive(session.id, [{ type: "room_finished" }]);
    expect(ended?.status).toBe("cancelled");
    expect(await drive(session.id, [joined, { type: "time_passed", seconds: 3600 }])).toEqual(ended);
  });

  it("refuses seconds without time_passed, and time_passed without seconds (422 at seconds)", async () => {
    const session = await testSession();
    for (const body of [{ type: "time_passed" }, { type: "participant_joined", seconds: 5 }]) {
      const error = await expectApiError(await send(session.id, body), 422, "validation_failed");
      expect(error.detail).toEqual([expect.objectContaining({ location: "body", path: "seconds" })]);
    }
    await expectApiError(await send(session.id, { type: "time_passed", seconds: 0 }), 422, "validation_failed");
    await expectApiError(await send(session.id, { type: "meteor_strike" }), 422, "validation_failed");
  });

  it("answers 404 for a live session, another account's, or none", async () => {
    const live = expectData(await h.client(KEYS.a).createSession({}), 201);
    const other = expectData(await h.client(KEYS.b).createSession({}), 201);
    for (const id of [live.id, other.id, crypto.randomUUID()]) await expectApiError(await send(id, joined), 404, "not_found");
    // Untouched.
    expect(expectData(await h.client(KEYS.a).getSession(live.id)).status).toBe("created");
  });
});

describe("POST /v1/test-helpers/sessions/{id}/events, with a live key", () => {
  it("answers 403 test_key_required, before the body is looked at", async () => {
    const live = expectData(await h.client(KEYS.a).createSession({}), 201);
    await expectApiError(await send(live.id, { type: "participant_joined" }, KEYS.a), 403, "test_key_required");
    await expectApiError(await send(live.id, { type: "not an event" }, KEYS.a), 403, "test_key_required");
    // A test key without sessions:write is not one either: the scope is checked first.
    await expectApiError(await send(live.id, { type: "participant_joined" }, KEYS.aRead), 403, "forbidden");
  });
});

describe("the session's webhook events", () => {
  const receiver = new WebhookReceiver();
  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it("are sent for helper events as for LiveKit's: created, digital human joined, active, ended, in test mode", async () => {
    const endpoint = expectData(await h.client(KEYS.aTest).createWebhookEndpoint({ url: receiver.url }), 201);
    receiver.secrets = [endpoint.secret as string];
    const session = await testSession();
    await drive(session.id, [{ type: "digital_human_joined" }, { type: "participant_joined" }, { type: "participant_left" }]);
    await drive(session.id, [{ type: "time_passed", seconds: DEPARTURE_S }]);
    const types = ["session.created", "session.digital_human_joined", "session.active", "session.ended"];
    const got = await until(() => {
      const mine = receiver.received.filter((r) => r.body.data?.id === session.id);
      return types.every((type) => mine.some((r) => r.type === type)) ? mine : undefined;
    });
    expect(got.every((r) => r.body.mode === "test" && r.verifiedWith === 0)).toBe(true);
    expect(got.find((r) => r.type === "session.ended")?.body.data).toMatchObject({ status: "completed", end_reason: "participant_left" });
    await h.client(KEYS.aTest).deleteWebhookEndpoint(endpoint.id);
  });
});
