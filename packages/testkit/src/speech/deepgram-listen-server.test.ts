import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type DeepgramListenServer, startDeepgramListenServer } from "./deepgram-listen-server.js";
import type { SpeechEngines } from "./speech-engines.js";
import { encodeWav, pcmBytes } from "./wav.js";

const KEY = "dg-test";
const RATE = 16_000;
/** Engines whose words say how long the utterance was (in tenths of a second) and in which language. */
const engines: SpeechEngines = {
  transcribe: async (speech, language) => `tenths ${Math.round((speech.samples.length / speech.sampleRate) * 10)} ${language ?? "any"}`,
  synthesize: async () => ({ samples: new Int16Array(0), sampleRate: RATE }),
};

/** `ms` of a 440 Hz tone (loud) or of silence. */
function tone(ms: number, loud = true): Int16Array {
  return Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) =>
    loud ? Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / RATE)) : 0,
  );
}

function join(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

let server: DeepgramListenServer;
beforeAll(async () => {
  server = await startDeepgramListenServer({ engines, apiKey: KEY });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault("none");
  server.sessions.length = 0;
});

/** A stream opened with `query`, its messages gathered until it closes. */
async function listen(query: string, key = KEY) {
  const ws = new WebSocket(`${server.url}/v1/listen?${query}`, { headers: { authorization: `Token ${key}` } });
  const messages: Record<string, any>[] = [];
  ws.on("message", (data) => messages.push(JSON.parse(data.toString())));
  const closed = new Promise<number>((resolve) => ws.on("close", resolve));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  return { ws, messages, closed };
}

/** The status an upgrade was refused with. */
function refusedWith(url: string, key = KEY): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { authorization: `Token ${key}` } });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("open", () => reject(new Error("accepted")));
  });
}

describe("the streaming /v1/listen", () => {
  it("cuts the audio at its quiet into utterances, each a final Results in order, with SpeechStarted and UtteranceEnd", async () => {
    const { ws, messages, closed } = await listen(
      "encoding=linear16&sample_rate=16000&channels=1&language=en&vad_events=true&utterance_end_ms=1000&endpointing=300",
    );
    const audio = pcmBytes(join(tone(200, false), tone(500), tone(600, false), tone(1000), tone(700, false)));
    // Odd-sized messages: a sample split between two is joined again.
    for (let at = 0; at < audio.length; at += 333) ws.send(audio.subarray(at, at + 333));
    ws.send(JSON.stringify({ type: "KeepAlive" }));
    ws.send(JSON.stringify({ type: "CloseStream" }));
    expect(await closed).toBe(1000);
    expect(messages.map((m) => m.type)).toEqual([
      "SpeechStarted",
      "SpeechStarted",
      "Results",
      "UtteranceEnd",
      "Results",
      "UtteranceEnd",
      "Metadata",
    ]);
    const results = messages.filter((m) => m.type === "Results");
    expect(results.map((r) => r.channel.alternatives[0].transcript)).toEqual(["tenths 7 en", "tenths 12 en"]);
    expect(results.every((r) => r.is_final && r.speech_final && typeof r.metadata.request_id === "string")).toBe(true);
    // Each starts with the preroll before its first loud frame, and its words share its span.
    expect(results[0]).toMatchObject({ start: 0, duration: 0.7 });
    expect(results[1]).toMatchObject({ start: 1.1, duration: 1.2 });
    expect(results[1]?.channel.alternatives[0].words.map((w: { start: number }) => w.start)).toEqual([1.1, 1.5, 1.9]);
    expect(messages.at(-1)).toMatchObject({ type: "Metadata", duration: 3, channels: 1 });
    expect(server.sessions[0]).toMatchObject({
      language: "en",
      endpointing: 300,
      vadEvents: true,
      utteranceEndMs: 1000,
      controls: ["KeepAlive", "CloseStream"],
    });
  });

  it("Finalize ends the utterance under way at once (from_finalize, not speech_final)", async () => {
    const { ws, messages, closed } = await listen("encoding=linear16&sample_rate=16000");
    ws.send(pcmBytes(tone(800)));
    ws.send(JSON.stringify({ type: "Finalize" }));
    ws.send(JSON.stringify({ type: "CloseStream" }));
    await closed;
    expect(messages[0]).toMatchObject({ type: "Results", is_final: true, speech_final: false, from_finalize: true });
    expect(messages[0]?.channel.alternatives[0].transcript).toBe("tenths 8 any");
  });

  it("mixes stereo down to mono", async () => {
    const { ws, messages, closed } = await listen("encoding=linear16&sample_rate=16000&channels=2&endpointing=false");
    const mono = join(tone(500), tone(600, false));
    ws.send(pcmBytes(Int16Array.from({ length: mono.length * 2 }, (_, i) => mono[i >> 1] as number)));
    ws.send(JSON.stringify({ type: "CloseStream" }));
    await closed;
    expect(messages.find((m) => m.type === "Results")?.channel.alternatives[0].transcript).toBe("tenths 5 any");
  });

  it.each([
    ["a wrong key", "/v1/listen?encoding=linear16&sample_rate=16000", "dg-wrong", 401],
    ["another path", "/v1/speak?encoding=linear16&sample_rate=16000", KEY, 404],
    ["an encoding it does not read", "/v1/listen?encoding=opus&sample_rate=16000", KEY, 400],
    ["no sample rate", "/v1/listen?encoding=linear16", KEY, 400],
    ["too many channels", "/v1/listen?encoding=linear16&sample_rate=16000&channels=9", KEY, 400],
  ])("refuses %s at the upgrade", async (_name, path, key, status) => {
    expect(await refusedWith(`${server.url}${path}`, key)).toBe(status);
    expect(server.sessions).toEqual([]);
  });

  it("faults: refuse is a 503 upgrade; midway closes 1011 at the first audio", async () => {
    server.setFault("refuse");
    expect(await refusedWith(`${server.url}/v1/listen?encoding=linear16&sample_rate=16000`)).toBe(503);
    server.setFault("midway");
    const { ws, messages, closed } = await listen("encoding=linear16&sample_rate=16000");
    ws.send(pcmBytes(tone(100)));
    expect(await closed).toBe(1011);
    expect(messages).toEqual([]);
  });
});

describe("the prerecorded POST /v1/listen", () => {
  it("hears a WAV and answers Deepgram's results", async () => {
    const res = await fetch(`${server.url.replace(/^ws/, "http")}/v1/listen?model=nova-3&language=en`, {
      method: "POST",
      headers: { authorization: `Token ${KEY}`, "content-type": "audio/wav" },
      body: new Uint8Array(encodeWav({ samples: tone(1500), sampleRate: RATE })),
    });
    const body = (await res.json()) as Record<string, any>;
    expect(body.results.channels[0].alternatives[0].transcript).toBe("tenths 15 en");
    expect(typeof body.metadata.request_id).toBe("string");
    expect(server.requests.at(-1)).toMatchObject({ apiKey: KEY, transcript: "tenths 15 en" });
  });

  it("refuses what is not a WAV (400) and a wrong key (401)", async () => {
    const post = (key: string) =>
      fetch(`${server.url.replace(/^ws/, "http")}/v1/listen`, { method: "POST", headers: { authorization: `Token ${key}` }, body: "nope" });
    expect((await post(KEY)).status).toBe(400);
    expect(await (await post("dg-wrong")).json()).toMatchObject({ err_code: "INVALID_AUTH" });
  });
});
