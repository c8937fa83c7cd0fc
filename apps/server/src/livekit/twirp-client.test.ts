import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AccessToken, TokenVerifier } from "livekit-server-sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveKitApiError, TwirpClient } from "./twirp-client.js";

let server: Server;
let url: string;
let answer: (req: IncomingMessage, res: ServerResponse, body: string) => void;
const seen: { path: string; authorization: string; body: string; socket: unknown }[] = [];
let client: TwirpClient;
const verifier = new TokenVerifier("devkey", "secret");

beforeEach(async () => {
  seen.length = 0;
  answer = (_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ path: String(req.url), authorization: String(req.headers.authorization), body, socket: req.socket });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new TwirpClient({ apiUrl: url, apiKey: "devkey", apiSecret: "secret", timeoutMs: 500 });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const bearer = (i: number) => (seen[i]?.authorization ?? "").replace(/^Bearer /, "");

describe("TwirpClient", () => {
  it("posts the JSON body to /twirp/livekit.<service>/<method> and answers the JSON", async () => {
    answer = (_req, res, body) =>
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ echo: JSON.parse(body) }));
    expect(await client.call("RoomService", "CreateRoom", { name: "r1" })).toEqual({ echo: { name: "r1" } });
    expect(seen[0]?.path).toBe("/twirp/livekit.RoomService/CreateRoom");
  });

  it("keeps its connections to LiveKit open between calls", async () => {
    for (let i = 0; i < 10; i++) await client.call("RoomService", "DeleteRoom", { room: `r${i}` });
    // undici may open a second connection while the first is being released; never one per call.
    expect(new Set(seen.map((call) => call.socket)).size).toBeLessThanOrEqual(2);
  });

  it("reuses one API token for a minute, then mints another", async () => {
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    const mint = vi.spyOn(AccessToken.prototype, "toJwt");
    await client.call("RoomService", "DeleteRoom", { room: "a" });
    await client.call("RoomService", "DeleteRoom", { room: "b" });
    expect(bearer(1)).toBe(bearer(0));
    expect(mint).toHaveBeenCalledTimes(1);
    const grants = await verifier.verify(bearer(0));
    expect(grants.video).toMatchObject({ roomCreate: true, roomList: true });
    expect(grants.video?.roomAdmin).toBeFalsy();

    clock.mockReturnValue(now + 61_000);
    await client.call("RoomService", "DeleteRoom", { room: "c" });
    expect(mint).toHaveBeenCalledTimes(2);
    expect((await verifier.verify(bearer(2))).video).toMatchObject({ roomCreate: true });
  });

  it("gives a call that needs roomAdmin a token for that room alone", async () => {
    await client.call("AgentDispatchService", "ListDispatch", { room: "room-1" }, "room-1");
    const grants = await verifier.verify(bearer(0));
    expect(grants.video).toMatchObject({ roomAdmin: true, room: "room-1" });
    expect(grants.video?.roomCreate).toBeFalsy();
  });

  it("turns a Twirp error into LiveKitApiError with its status, code and message", async () => {
    answer = (_req, res) =>
      res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ code: "not_found", msg: "room not found" }));
    const error = await client.call("RoomService", "DeleteRoom", { room: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LiveKitApiError);
    expect(error).toMatchObject({ status: 404, code: "not_found", message: "room not found" });

    answer = (_req, res) => res.writeHead(502, { "Content-Type": "text/plain" }).end("bad gateway");
    expect(await client.call("RoomService", "DeleteRoom", { room: "x" }).catch((e: unknown) => e)).toMatchObject({
      status: 502,
      code: undefined,
      message: "bad gateway",
    });
  });

  it("gives up on a LiveKit that does not answer within the timeout", async () => {
    answer = () => undefined;
    const started = performance.now();
    const error = await client.call("RoomService", "CreateRoom", { name: "slow" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(LiveKitApiError);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
