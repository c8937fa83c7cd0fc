import { TokenVerifier } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { TranscriptPoster } from "./transcript-poster.js";

type Sent = { url: string; authorization: string; body: { segments: { id: string; speaker: string; text: string }[]; final: boolean } };

function service(answers: (number | "network" | { status: number; body: unknown })[]) {
  const sent: Sent[] = [];
  const fetchImpl = async (request: Request) => {
    sent.push({
      url: request.url,
      authorization: request.headers.get("Authorization") ?? "",
      body: (await request.json()) as Sent["body"],
    });
    const answer = answers.shift() ?? 200;
    if (answer === "network") throw new TypeError("fetch failed");
    if (typeof answer === "object") return new Response(JSON.stringify(answer.body), { status: answer.status });
    return new Response(JSON.stringify({}), { status: answer });
  };
  return { sent, fetchImpl };
}

const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 9, 0, s));

function poster(fetchImpl: (request: Request) => Promise<Response>, errors: string[] = []) {
  return new TranscriptPoster({
    serviceUrl: "http://dhs.test",
    sessionId: SESSION,
    roomName: `dhs-${SESSION}`,
    apiKey: "devkey",
    apiSecret: "secret",
    idPrefix: "AJ_1",
    fetch: fetchImpl,
    onError: (message) => errors.push(message),
    retryBaseMs: 1,
  });
}

describe("TranscriptPoster", () => {
  it("posts each side's segments with ids of their own, then final, with an agent's token for the session's room", async () => {
    const { sent, fetchImpl } = service([]);
    const p = poster(fetchImpl);
    p.add({ speaker: "digital_human", text: " Hello Ada. ", startedAt: at(0), endedAt: at(2) });
    p.add({ speaker: "participant", text: "hi", startedAt: at(3), endedAt: at(4) });
    p.add({ speaker: "participant", text: "   ", startedAt: at(5), endedAt: at(6) });
    await p.finish(true);
    const segments = sent.flatMap((s) => s.body.segments);
    expect(segments.map((s) => [s.id, s.speaker, s.text])).toEqual([
      ["AJ_1-dh-1", "digital_human", "Hello Ada."],
      ["AJ_1-p-1", "participant", "hi"],
    ]);
    expect(sent.at(-1)?.body.final).toBe(true);
    expect(sent.slice(0, -1).every((s) => !s.body.final)).toBe(true);
    expect(sent[0]?.url).toBe(`http://dhs.test/v1/sessions/${SESSION}/transcript/segments`);
    const claims = await new TokenVerifier("devkey", "secret").verify(sent[0]?.authorization.replace("Bearer ", "") ?? "");
    expect(claims.video).toMatchObject({ agent: true, room: `dhs-${SESSION}` });
  });

  it("sends a post again as it was after a network failure or a 503, and gives up after five attempts, saying so", async () => {
    const { sent, fetchImpl } = service(["network", 503]);
    const errors: string[] = [];
    const p = poster(fetchImpl, errors);
    p.add({ speaker: "digital_human", text: "one", startedAt: at(0), endedAt: at(1) });
    await p.finish(true);
    expect(sent.slice(0, 3).map((s) => s.body.segments.map((x) => x.id))).toEqual([["AJ_1-dh-1"], ["AJ_1-dh-1"], ["AJ_1-dh-1"]]);
    expect(errors).toEqual([]);

    const down = service([503, 503, 503, 503, 503]);
    const failed = poster(down.fetchImpl, errors);
    failed.add({ speaker: "digital_human", text: "lost", startedAt: at(0), endedAt: at(1) });
    await failed.finish(true);
    expect(down.sent.filter((s) => s.body.segments.length > 0)).toHaveLength(5);
    expect(errors[0]).toMatch(/^transcript segments not delivered: 503/);
  });

  it("stops posting once the service says the transcript is closed", async () => {
    const { sent, fetchImpl } = service([409]);
    const errors: string[] = [];
    const p = poster(fetchImpl, errors);
    p.add({ speaker: "digital_human", text: "one", startedAt: at(0), endedAt: at(1) });
    p.add({ speaker: "digital_human", text: "two", startedAt: at(1), endedAt: at(2) });
    await p.finish(true);
    expect(sent).toHaveLength(1);
    expect(errors).toHaveLength(1);
  });

  it("leaves the transcript open when the job stops while its session goes on", async () => {
    const { sent, fetchImpl } = service([]);
    const p = poster(fetchImpl);
    p.add({ speaker: "digital_human", text: "one", startedAt: at(0), endedAt: at(1) });
    await p.finish(false);
    expect(sent.map((s) => s.body.final)).toEqual([false]);
    expect(sent.flatMap((s) => s.body.segments)).toHaveLength(1);
    // Learning afterwards that the room is gone still says it, once.
    await p.finish(true);
    await p.finish(true);
    expect(sent.map((s) => s.body.final)).toEqual([false, true]);
  });

  it("batches at most 50 segments a post and cuts a text to 2 000 characters", async () => {
    const { sent, fetchImpl } = service([]);
    const p = poster(fetchImpl);
    for (let i = 0; i < 120; i++) p.add({ speaker: "participant", text: "x".repeat(2500), startedAt: at(i), endedAt: at(i) });
    await p.finish(true);
    expect(sent.every((s) => s.body.segments.length <= 50)).toBe(true);
    expect(sent.flatMap((s) => s.body.segments)).toHaveLength(120);
    expect(sent.flatMap((s) => s.body.segments).every((s) => s.text.length === 2000)).toBe(true);
  });

  it("cleans each text by the service's rule: bidirectional controls out, never cut inside an emoji", async () => {
    const { sent, fetchImpl } = service([]);
    const p = poster(fetchImpl);
    p.add({ speaker: "participant", text: "\u202eHello\u2069 there", startedAt: at(0), endedAt: at(1) });
    p.add({ speaker: "participant", text: `${"x".repeat(1999)}😀`, startedAt: at(1), endedAt: at(2) });
    p.add({ speaker: "participant", text: "\u2066\u2069", startedAt: at(2), endedAt: at(3) });
    await p.finish(true);
    const texts = sent.flatMap((s) => s.body.segments).map((segment) => segment.text);
    expect(texts).toEqual(["Hello there", "x".repeat(1999)]);
  });

  it("sends a post refused for some of its segments again without them, and says so", async () => {
    const refusal = {
      status: 422,
      body: { code: "validation_failed", detail: [{ location: "body", path: "segments.1.text", message: "has no visible character" }] },
    };
    const { sent, fetchImpl } = service([refusal]);
    const errors: string[] = [];
    const p = poster(fetchImpl, errors);
    for (const [i, text] of ["one", "two", "three"].entries())
      p.add({ speaker: "digital_human", text, startedAt: at(i), endedAt: at(i + 1) });
    await p.finish(true);
    expect(sent.map((s) => [s.body.segments.map((segment) => segment.text), s.body.final])).toEqual([
      [["one", "two", "three"], false],
      [["one", "three"], false],
      [[], true],
    ]);
    expect(errors).toEqual([expect.stringMatching(/^1 transcript segment\(s\) refused and left out/)]);
  });
});
