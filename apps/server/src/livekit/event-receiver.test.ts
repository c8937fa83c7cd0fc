import { createHash } from "node:crypto";
import { AccessToken } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { InconsistentRoomError, InvalidWebhookError, LiveKitEventReceiver, sessionRoomEvent } from "./event-receiver.js";

const KEY = "devkey";
const SECRET = "secret-that-is-long-enough-for-hs256";
const receiver = new LiveKitEventReceiver(KEY, SECRET);

async function signed(body: string, secret = SECRET): Promise<string> {
  const token = new AccessToken(KEY, secret, { ttl: 600 });
  token.sha256 = createHash("sha256").update(body).digest("base64");
  return token.toJwt();
}

/** Checks the token, then the body, as the route does. */
async function receive(body: string, authorization?: string) {
  const sha256 = await receiver.checkAuthorization(authorization ?? (await signed(body)));
  return receiver.parse(Buffer.from(body), sha256);
}

const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const room = {
  sid: "RM_1",
  name: `dhs-${SESSION}`,
  metadata: JSON.stringify({ session_id: SESSION, account_id: "acct_a", deployment: "dhs" }),
};

describe("LiveKitEventReceiver", () => {
  it.each([
    ["by name", "AGENT", true],
    ["by number", 4, true],
    ["a participant's", "STANDARD", false],
  ])("reads a signed event's fields, the participant's kind %s", async (_name, kind, isAgent) => {
    const body = JSON.stringify({
      event: "participant_joined",
      id: "EV_1",
      createdAt: "1",
      room,
      participant: { sid: "PA_1", identity: "u", kind },
      extra: { ignored: true },
    });
    expect(await receive(body)).toEqual({
      event: "participant_joined",
      id: "EV_1",
      room: { name: room.name, metadata: room.metadata },
      participant: { identity: "u", sid: "PA_1", isAgent },
    });
  });

  it.each([
    ["an empty authorization", async () => receive("{}", ""), /authorization header is empty/],
    ["another secret's signature", async () => receive("{}", await signed("{}", "another-secret-that-is-long-enough")), /signature/],
    [
      "a tampered body",
      async () => receiver.parse(Buffer.from('{"event":"room_finished"}'), await receiver.checkAuthorization(await signed("{}"))),
      /sha256 checksum/,
    ],
    [
      "a token that signs no body",
      async () => receiver.parse(Buffer.from("{}"), await receiver.checkAuthorization(await new AccessToken(KEY, SECRET).toJwt())),
      /sha256 checksum/,
    ],
    ["a body that is not JSON", async () => receive("not json"), /not JSON/],
    ["a body that is not an object", async () => receive("[1]"), /not a JSON object/],
  ])("refuses %s", async (_name, attempt, reason) => {
    const refused = await attempt().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(InvalidWebhookError);
    expect((refused as Error).message).toMatch(reason);
  });
});

describe("sessionRoomEvent", () => {
  const event = (overrides: object) => ({
    event: "room_finished",
    id: "EV_2",
    room: { name: room.name, metadata: room.metadata },
    participant: undefined,
    ...overrides,
  });

  it("names the session and account of this service's room, and ignores other rooms", () => {
    expect(sessionRoomEvent(event({}))).toEqual({ id: "EV_2", accountId: "acct_a", sessionId: SESSION, event: { type: "room_finished" } });
    expect(sessionRoomEvent(event({ room: { name: "someone-elses", metadata: undefined } }))).toBeUndefined();
    expect(sessionRoomEvent(event({ event: "track_published" }))).toBeUndefined();
  });

  it("refuses a room whose name and metadata name different sessions", () => {
    const metadata = JSON.stringify({ session_id: "another", account_id: "acct_a" });
    expect(() => sessionRoomEvent(event({ room: { name: room.name, metadata } }))).toThrow(InconsistentRoomError);
  });
});
