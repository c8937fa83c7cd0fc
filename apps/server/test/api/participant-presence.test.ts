/**
 * Who is in the room, in the order real users and avatars produce it: the digital human booting a few
 * seconds after the user joined, the user closing the tab, reloading the page, losing the network for a
 * moment. Signed webhooks as LiveKit sends them; timers fired by the sweeper with nobody reading.
 */

import { afterEach, describe, expect, it } from "vitest";
import { listed, newSession, roomEvent, until, useHarness } from "../support/harness.js";
import { ShiftedClock, timersAfterOf } from "../support/shifted-clock.js";

// Long timeouts cost nothing: the sweeper's clock is the test's, moved past them, and it fires only when
// a test sweeps (its own interval is longer than the file). A margin of 5 s on each side of a due time
// keeps the real time between a test's steps out of the answer.
const DIGITAL_HUMAN_S = 20;
const DEPARTURE_S = 30;
const MARGIN_MS = 5_000;

const clock = new ShiftedClock();
const t = useHarness(
  {
    DIGITAL_HUMAN_JOIN_TIMEOUT_S: String(DIGITAL_HUMAN_S),
    SESSION_DEPARTURE_TIMEOUT_S: String(DEPARTURE_S),
    SESSION_JOIN_TIMEOUT_S: "600",
    SESSION_MAX_DURATION_S: "600",
    SWEEP_INTERVAL_MS: "60000",
  },
  { timerClock: clock.now },
);
afterEach(() => clock.reset());

const timersAfter = timersAfterOf(clock, () => t.composed.sweeper);

async function itemOf(
  id: string,
): Promise<{ status: string; end_reason: string | null; ended_at: string | null; digital_human_joined_at: string | null }> {
  return (await listed(t)).find((item) => item.id === id) as never;
}

const roomDeleted = (roomName: string) => t.livekit.callsOf("DeleteRoom").some((call) => call.body.room === roomName);

describe("a digital human that joins after the participant", () => {
  it("keeps the session active past the digital-human timeout, and its room", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    await timersAfter(500);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await timersAfter(DIGITAL_HUMAN_S * 1000 + MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null, digital_human_joined_at: expect.any(String) });
    expect(roomDeleted(s.room_name)).toBe(false);
  });
});

describe("a participant who leaves", () => {
  it("and does not come back completes the session (participant_left) after the departure timeout, and its room is deleted", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_1" }));
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity, sid: "PA_1" }));
    await timersAfter(DEPARTURE_S * 1000 - MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
    await timersAfter(2 * MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "completed", end_reason: "participant_left", ended_at: expect.any(String) });
    await until(async () => roomDeleted(s.room_name));
    expect((await t.session(s.id)).participant_token).toBeNull();
  });

  it("and rejoins within the departure timeout (a reload) keeps the session", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_1" }));
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity, sid: "PA_1" }));
    await timersAfter(300);
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_2" }));
    await timersAfter(DEPARTURE_S * 1000 + MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
    expect(roomDeleted(s.room_name)).toBe(false);
  });

  it("while a newer connection of the same identity already joined (LiveKit reports the reload in that order) keeps the session", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_1" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_2" }));
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity, sid: "PA_1" }));
    await timersAfter(DEPARTURE_S * 1000 + MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
  });

  it("is not someone else leaving: another participant's departure changes nothing", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    await t.webhook(roomEvent("participant_joined", s, { identity: "observer" }));
    await t.webhook(roomEvent("participant_left", s, { identity: "observer" }));
    await timersAfter(DEPARTURE_S * 1000 + MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
  });

  it("before the session was active changes nothing (the join timeout still applies)", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity }));
    await timersAfter(DEPARTURE_S * 1000 + MARGIN_MS);
    expect(await itemOf(s.id)).toMatchObject({ status: "created", end_reason: null });
  });
});
