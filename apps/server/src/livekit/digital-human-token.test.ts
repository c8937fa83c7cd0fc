import { AccessToken } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { DigitalHumanTokens, InvalidDigitalHumanTokenError } from "./digital-human-token.js";

const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const tokens = new DigitalHumanTokens("devkey", "secret");

async function jwt(grant: Record<string, unknown>, options: { key?: string; secret?: string; ttl?: number } = {}): Promise<string> {
  const token = new AccessToken(options.key ?? "devkey", options.secret ?? "secret", { identity: "dh", ttl: options.ttl ?? 300 });
  token.addGrant(grant);
  return token.toJwt();
}

describe("DigitalHumanTokens", () => {
  it("names the session whose room an agent's token is for, and the identity it was signed for", async () => {
    expect(await tokens.verify(`Bearer ${await jwt({ agent: true, room: `dhs-${SESSION}` })}`)).toEqual({
      sessionId: SESSION,
      identity: "dh",
    });
  });

  it.each([
    ["no header", async () => undefined],
    ["not a bearer", async () => `Basic ${await jwt({ agent: true, room: `dhs-${SESSION}` })}`],
    ["a participant's token", async () => `Bearer ${await jwt({ roomJoin: true, room: `dhs-${SESSION}` })}`],
    ["a room this service did not name", async () => `Bearer ${await jwt({ agent: true, room: "lobby" })}`],
    ["no room", async () => `Bearer ${await jwt({ agent: true })}`],
    ["another secret", async () => `Bearer ${await jwt({ agent: true, room: `dhs-${SESSION}` }, { secret: "not-the-secret" })}`],
    ["another API key", async () => `Bearer ${await jwt({ agent: true, room: `dhs-${SESSION}` }, { key: "otherkey" })}`],
    ["an expired one", async () => `Bearer ${await jwt({ agent: true, room: `dhs-${SESSION}` }, { ttl: -60 })}`],
    [
      "alg none",
      async () => {
        const [, payload] = (await jwt({ agent: true, room: `dhs-${SESSION}` })).split(".");
        return `Bearer ${Buffer.from('{"alg":"none"}').toString("base64url")}.${payload}.`;
      },
    ],
    ["not a JWT", async () => "Bearer dhs_live_account_a_read_write"],
  ])("refuses %s", async (_name, header) => {
    await expect(tokens.verify(await header())).rejects.toBeInstanceOf(InvalidDigitalHumanTokenError);
  });
});
