import { TokenVerifier } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { readWorkerConfig } from "../worker/worker-config.js";
import { ServiceClient, serviceAccess } from "./service-client.js";

const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const QUEUE = { items: [], interrupt_seq: 0, turn_events: false };

function service(answers: (Response | "network")[]) {
  const sent: { url: string; authorization: string; body: unknown; at: number }[] = [];
  const fetchImpl = async (request: Request) => {
    sent.push({ url: request.url, authorization: request.headers.get("Authorization") ?? "", body: await request.json(), at: Date.now() });
    const answer = answers.shift() ?? Response.json(QUEUE);
    if (answer === "network") throw new TypeError("fetch failed");
    return answer;
  };
  const access = { serviceUrl: "http://dhs.test", sessionId: SESSION, roomName: `dhs-${SESSION}`, apiKey: "devkey", apiSecret: "secret" };
  return { api: new ServiceClient({ ...access, fetch: fetchImpl }, () => "agent-AJ_1"), sent };
}

const pull = { after: 0, participant_identity: "agent-AJ_1" };

describe("serviceAccess", () => {
  it("is the service's address without a trailing slash, with the worker's key, for the session's room", () => {
    const config = readWorkerConfig({ DHS_API_URL: "http://dhs.test:3000//", LIVEKIT_API_KEY: "devkey", LIVEKIT_API_SECRET: "secret" });
    expect(serviceAccess(config, SESSION, undefined)).toEqual({
      serviceUrl: "http://dhs.test:3000",
      sessionId: SESSION,
      roomName: `dhs-${SESSION}`,
      apiKey: "devkey",
      apiSecret: "secret",
    });
    expect(serviceAccess(config, SESSION, "dhs-other")?.roomName).toBe("dhs-other");
  });

  it("is none where the worker does not know the service, or the job has no session", () => {
    expect(serviceAccess(readWorkerConfig({ DHS_API_URL: "" }), SESSION, undefined)).toBeUndefined();
    expect(serviceAccess(readWorkerConfig({}), SESSION, undefined)).toBeUndefined();
    expect(serviceAccess(readWorkerConfig({ DHS_API_URL: "http://dhs.test" }), undefined, undefined)).toBeUndefined();
  });
});

describe("ServiceClient", () => {
  it("posts the contract's operation under the session with an agent's token for its room and the job's identity", async () => {
    const { api, sent } = service([Response.json(QUEUE)]);
    expect(await api.pull(pull, { attempts: 3, baseMs: 1 })).toEqual({ ok: true, data: QUEUE });
    expect(sent[0]?.url).toBe(`http://dhs.test/v1/sessions/${SESSION}/conversation/pull`);
    expect(sent[0]?.body).toEqual(pull);
    const claims = await new TokenVerifier("devkey", "secret").verify(sent[0]?.authorization.replace("Bearer ", "") ?? "");
    expect(claims.video).toMatchObject({ agent: true, room: `dhs-${SESSION}` });
    expect(claims.sub).toBe("agent-AJ_1");
  });

  it("tries again after a network failure, a 503 and a 429 (waiting its Retry-After), up to its attempts", async () => {
    const { api, sent } = service([
      "network",
      new Response("down", { status: 503 }),
      new Response("slow down", { status: 429, headers: { "Retry-After": "1" } }),
    ]);
    expect(await api.pull(pull, { attempts: 4, baseMs: 1 })).toEqual({ ok: true, data: QUEUE });
    expect(sent).toHaveLength(4);
    expect((sent[3]?.at ?? 0) - (sent[2]?.at ?? 0)).toBeGreaterThanOrEqual(900);

    const down = service(["network", "network"]);
    expect(await down.api.pull(pull, { attempts: 2, baseMs: 1 })).toMatchObject({ ok: false, status: undefined });
    expect(down.sent).toHaveLength(2);
  });

  it("answers any other refusal at once, with its status and the service's ApiError", async () => {
    const ended = { code: "session_ended", detail: "Session is completed.", request_id: "req_1" };
    const { api, sent } = service([Response.json(ended, { status: 409 })]);
    expect(await api.report({ participant_identity: "agent-AJ_1", reports: [] }, { attempts: 5, baseMs: 1 })).toMatchObject({
      ok: false,
      status: 409,
      error: ended,
    });
    expect(sent).toHaveLength(1);
  });
});
