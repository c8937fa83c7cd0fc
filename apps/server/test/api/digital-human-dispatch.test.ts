/**
 * A digital human that never comes, or drops out, is fetched again: self-hosted LiveKit dispatches an
 * agent once, so a room made while no worker was registered, or whose worker crashed, would stay without
 * one. The service asks LiveKit's AgentDispatchService whether a job is pending or running and dispatches
 * again when none is; a slow-booting avatar (its job running, not joined yet) is never doubled.
 */

import { afterEach, describe, expect, it } from "vitest";
import { listed, newSession, roomEvent, until, useHarness } from "../support/harness.js";
import { ShiftedClock, timersAfterOf } from "../support/shifted-clock.js";

// The sweeper's clock is the test's, moved past each check and timeout, and it fires only when a test
// sweeps (its own interval is longer than the file); 5 s either side of a due time keeps the real time
// between a test's steps out of the answer.
const REDISPATCH_S = 5;
const DIGITAL_HUMAN_S = 30;
const MARGIN_MS = 5_000;

const clock = new ShiftedClock();
const t = useHarness(
  {
    DIGITAL_HUMAN_REDISPATCH_S: String(REDISPATCH_S),
    DIGITAL_HUMAN_JOIN_TIMEOUT_S: String(DIGITAL_HUMAN_S),
    SESSION_MAX_DURATION_S: "600",
    SESSION_JOIN_TIMEOUT_S: "600",
    SWEEP_INTERVAL_MS: "60000",
  },
  { timerClock: clock.now },
);
afterEach(() => clock.reset());

const timersAfter = timersAfterOf(clock, () => t.composed.sweeper);

const redispatches = (room: string) => t.livekit.callsOf("CreateDispatch").filter((call) => call.body.room === room);

async function itemOf(id: string): Promise<{ status: string; end_reason: string | null }> {
  return (await listed(t)).find((item) => item.id === id) as never;
}

describe("a session whose digital human was dispatched while no worker was registered", () => {
  it("gets it dispatched again once LiveKit shows no live job, and only once while the new job runs", async () => {
    t.livekit.workerAvailable = false;
    const s = await newSession(t);
    t.livekit.workerAvailable = true;
    await timersAfter(REDISPATCH_S * 1000 + MARGIN_MS);
    const [again] = await until(async () => (redispatches(s.room_name).length > 0 ? redispatches(s.room_name) : undefined));
    expect(again?.body).toMatchObject({ room: s.room_name, agentName: "ava" });
    expect(JSON.parse(again?.body.metadata)).toMatchObject({
      session_id: s.id,
      account_id: "acct_a",
      digital_human: { name: "Ava" },
      participant_identity: s.identity,
    });
    // The new dispatch has a running job: later checks (each due at once by now) leave it be.
    const checks = () => t.livekit.callsOf("ListDispatch").filter((call) => call.body.room === s.room_name).length;
    const before = checks();
    for (let check = 0; check < 3; check++) await timersAfter(1000);
    expect(checks()).toBeGreaterThan(before);
    expect(redispatches(s.room_name)).toHaveLength(1);
  });
});

describe("a slow-booting digital human (its job running, not joined yet)", () => {
  it("is never dispatched twice", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    // Three checks, all within its join timeout.
    for (let check = 0; check < 3; check++) await timersAfter(REDISPATCH_S * 1000 + 1000);
    expect(await itemOf(s.id)).toMatchObject({ end_reason: null });
    expect(t.livekit.callsOf("ListDispatch").some((call) => call.body.room === s.room_name)).toBe(true);
    expect(redispatches(s.room_name)).toEqual([]);
  });
});

describe("a digital human that drops out of an active session", () => {
  it("is dispatched again when its job ended, and the session goes on once it is back in time", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT", sid: "PA_agent_1" }));
    t.livekit.endJobs(s.room_name);
    await t.webhook(roomEvent("participant_left", s, { identity: "agent-ava", kind: "AGENT", sid: "PA_agent_1" }));
    await timersAfter(REDISPATCH_S * 1000 + MARGIN_MS);
    await until(async () => redispatches(s.room_name).length > 0);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT", sid: "PA_agent_2" }));
    await timersAfter(DIGITAL_HUMAN_S * 1000);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
  });

  it("and not back within its join timeout fails the session (digital_human_lost) and deletes its room", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    t.livekit.endJobs(s.room_name);
    await t.webhook(roomEvent("participant_left", s, { identity: "agent-ava", kind: "AGENT" }));
    await timersAfter(DIGITAL_HUMAN_S * 1000 - MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
    await timersAfter(2 * MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "failed", end_reason: "digital_human_lost" });
    await until(async () => t.livekit.callsOf("DeleteRoom").some((call) => call.body.room === s.room_name));
  });
});
