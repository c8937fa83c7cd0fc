import { RoomServiceClient, TokenVerifier, WebhookReceiver } from "livekit-server-sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeLiveKit } from "./fake-livekit.js";
import { LIVEKIT } from "./fixtures.js";
import { signLiveKitWebhook } from "./livekit-webhook.js";

describe("FakeLiveKit", () => {
  const livekit = new FakeLiveKit();
  let rooms: RoomServiceClient;
  beforeAll(async () => {
    await livekit.start();
    rooms = new RoomServiceClient(livekit.url, LIVEKIT.apiKey, LIVEKIT.apiSecret);
  });
  afterAll(() => livekit.stop());
  beforeEach(() => livekit.reset());

  it("creates, lists and deletes rooms for the SDK, dispatching their agents, and records the calls", async () => {
    await rooms.createRoom({ name: "r1", metadata: "m", agents: [{ agentName: "ava" } as never] });
    await rooms.createRoom({ name: "r1" });
    expect((await rooms.listRooms()).map((room) => [room.name, room.metadata])).toEqual([["r1", "m"]]);
    expect(livekit.dispatches.get("r1")).toEqual([{ agentName: "ava", jobs: ["JS_RUNNING"] }]);
    await rooms.deleteRoom("r1");
    expect(livekit.rooms.size).toBe(0);
    expect(livekit.calls.map((call) => call.method)).toEqual(["CreateRoom", "CreateRoom", "ListRooms", "DeleteRoom"]);
  });

  it("refuses credentials it does not know, and fails as told", async () => {
    await expect(new RoomServiceClient(livekit.url, LIVEKIT.apiKey, "another-secret").listRooms()).rejects.toThrow();
    livekit.mode = "fail";
    await expect(rooms.listRooms()).rejects.toThrow();
    expect(livekit.arrived).toEqual(["ListRooms", "ListRooms"]);
    expect(livekit.calls).toEqual([]);
  });
});

describe("signLiveKitWebhook", () => {
  it("signs as LiveKit does: the SDK's own receiver accepts it", async () => {
    const body = JSON.stringify({ event: "room_started", id: "EV_1", room: { name: "r" } });
    const event = await new WebhookReceiver(LIVEKIT.apiKey, LIVEKIT.apiSecret).receive(body, await signLiveKitWebhook(body));
    expect(event.event).toBe("room_started");
    await expect(new TokenVerifier(LIVEKIT.apiKey, "other").verify(await signLiveKitWebhook(body))).rejects.toThrow();
  });
});
