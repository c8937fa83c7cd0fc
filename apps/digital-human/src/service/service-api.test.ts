import { TokenVerifier } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { ServiceApi, serviceAccess } from "./service-api.js";

const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

function service(answers: (Response | "network")[]) {
  const sent: { url: string; authorization: string; body: unknown; at: number }[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    sent.push({
      url,
      authorization: new Headers(init.headers).get("Authorization") ?? "",
      body: JSON.parse(String(init.body)),
      at: Date.now(),
    });
    const answer = answers.shift() ?? Response.json({ fine: true });
    if (answer === "network") throw new TypeError("fetch failed");
    return answer;
  }) as unknown as typeof fetch;
  const api = new ServiceApi(
    {
      serviceUrl: "http://dhs.test",
      sessionId: SESSION,
      roomName: `dhs-${SESSION}`,
      apiKey: "devkey",
      apiSecret: "secret",
      fetch: fetchImpl,
    },
    () => "dh-test",
  );
  return { api, sent };
}

describe("serviceAccess", () => {
  it("is the service's address without a trailing slash, with the worker's key, for the session's room", () => {
    const env = { DHS_API_URL: "http://dhs.test:3000//", LIVEKIT_API_KEY: "devkey", LIVEKIT_API_SECRET: "secret" };
    expect(serviceAccess(env, SESSION, undefined)).toEqual({
      serviceUrl: "http://dhs.test:3000",
      sessionId: SESSION,
      roomName: `dhs-${SESSION}`,
      apiKey: "devkey",
      apiSecret: "secret",
    });
    expect(serviceAccess(env, SESSION, "dhs-other")?.roomName).toBe("dhs-other");
  });

  it("is none where the worker does not know the service, or the job has no session", () => {
    expect(serviceAccess({ DHS_API_URL: "" }, SESSION, undefined)).toBeUndefined();
    expect(serviceAccess({}, SESSION, undefined)).toBeUndefined();
    expect(serviceAccess({ DHS_API_URL: "http://dhs.test" }, undefined, undefined)).toBeUndefined();
  });
});

describe("ServiceApi", () => {
  it("posts JSON under the session with an agent's token for its room, and hands back the answer", async () => {
    const { api, sent } = service([Response.json({ items: [] })]);
    expect(await api.post("/conversation/pull", { after: 0 }, { attempts: 3, baseMs: 1 })).toEqual({ ok: true, body: { items: [] } });
    expect(sent[0]?.url).toBe(`http://dhs.test/v1/sessions/${SESSION}/conversation/pull`);
    expect(sent[0]?.body).toEqual({ after: 0 });
    const claims = await new TokenVerifier("devkey", "secret").verify(sent[0]?.authorization.replace("Bearer ", "") ?? "");
    expect(claims.video).toMatchObject({ agent: true, room: `dhs-${SESSION}` });
  });

  it("tries again after a network failure, a 503 and a 429 (waiting its Retry-After), up to its attempts", async () => {
    const { api, sent } = service([
      "network",
      new Response("down", { status: 503 }),
      new Response("slow down", { status: 429, headers: { "Retry-After": "1" } }),
    ]);
    expect(await api.post("/x", {}, { attempts: 4, baseMs: 1 })).toEqual({ ok: true, body: { fine: true } });
    expect(sent).toHaveLength(4);
    expect((sent[3]?.at ?? 0) - (sent[2]?.at ?? 0)).toBeGreaterThanOrEqual(900);

    const down = service(["network", "network"]);
    const outcome = await down.api.post("/x", {}, { attempts: 2, baseMs: 1 });
    expect(outcome).toMatchObject({ ok: false, status: undefined });
    expect(down.sent).toHaveLength(2);
  });

  it("answers any other refusal at once, with its status", async () => {
    const { api, sent } = service([new Response("gone", { status: 404 })]);
    expect(await api.post("/x", {}, { attempts: 5, baseMs: 1 })).toEqual({ ok: false, status: 404, problem: "404 gone" });
    expect(sent).toHaveLength(1);
  });
});
