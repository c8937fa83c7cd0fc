/**
 * Who is in the room, in the order real users and avatars produce it: the digital human booting a few
 * seconds after the user joined, the user closing the tab, reloading the page, losing the network for a
 * moment. Signed webhooks as LiveKit sends them; timers fired by the sweeper with nobody reading.
 */

import { sleep } from "@dhs/testkit";
import { describe, expect, it } from "vitest";
import { listed, newSession, roomEvent, until, useHarness } from "../support/harness.js";

const DIGITAL_HUMAN_S = 2;
const DEPARTURE_S = 1;

const t = useHarness({
  DIGITAL_HUMAN_JOIN_TIMEOUT_S: String(DIGITAL_HUMAN_S),
  SESSION_DEPARTURE_TIMEOUT_S: String(DEPARTURE_S),
  SESSION_MAX_DURATION_S: "120",
  SWEEP_INTERVAL_MS: "100",
});

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
    await sleep(500);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await sleep(DIGITAL_HUMAN_S * 1000 + 1000);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null, digital_human_joined_at: expect.any(String) });
    expect(roomDeleted(s.room_name)).toBe(false);
  });
});

describe("a participant who leaves", () => {
  it("and does not come back completes the session (participant_left) after the departure timeout, and its room is deleted", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_1" }));
    const left = Date.now();
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity, sid: "PA_1" }));
    const ended = await until(async () => {
      const item = await itemOf(s.id);
      return item.ended_at ? item : undefined;
    });
    expect(ended).toMatchObject({ status: "completed", end_reason: "participant_left" });
    expect(Date.parse(ended.ended_at as string) - left).toBeGreaterThanOrEqual(DEPARTURE_S * 1000 - 50);
    await until(async () => roomDeleted(s.room_name));
    expect((await t.session(s.id)).participant_token).toBeNull();
  });

  it("and rejoins within the departure timeout (a reload) keeps the session", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_1" }));
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity, sid: "PA_1" }));
    await sleep(300);
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_2" }));
    await sleep(DEPARTURE_S * 1000 + 700);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
    expect(roomDeleted(s.room_name)).toBe(false);
  });

  it("while a newer connection of the same identity already joined (LiveKit reports the reload in that order) keeps the session", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_1" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: "PA_2" }));
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity, sid: "PA_1" }));
    await sleep(DEPARTURE_S * 1000 + 700);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
  });

  it("is not someone else leaving: another participant's departure changes nothing", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_joined", s, { identity: "agent-ava", kind: "AGENT" }));
    await t.webhook(roomEvent("participant_joined", s, { identity: s.identity }));
    await t.webhook(roomEvent("participant_joined", s, { identity: "observer" }));
    await t.webhook(roomEvent("participant_left", s, { identity: "observer" }));
    await sleep(DEPARTURE_S * 1000 + 700);
    expect(await itemOf(s.id)).toMatchObject({ status: "active", end_reason: null });
  });

  it("before the session was active changes nothing (the join timeout still applies)", async () => {
    const s = await newSession(t);
    await t.webhook(roomEvent("participant_left", s, { identity: s.identity }));
    await sleep(DEPARTURE_S * 1000 + 700);
    expect(await itemOf(s.id)).toMatchObject({ status: "created", end_reason: null });
  });
});
