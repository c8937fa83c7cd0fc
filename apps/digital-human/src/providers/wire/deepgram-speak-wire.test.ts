/**
 * The digital human's Deepgram voice on the wire: the real `@livekit/agents-plugin-deepgram` TTS against
 * the testkit's Deepgram stand-in, Flite speaking for Aura and PocketSphinx hearing the plugin's frames,
 * so a test passes only when the plugin's URL, key, messages and decoding of the audio are all as Deepgram
 * has them, and each fault the stand-in can play ends the plugin's request rather than a test.
 */
import https from "node:https";
import { connect } from "node:net";
import { type DeepgramSpeakServer, type SpeechEngines, startDeepgramSpeakServer, until } from "@dhs/testkit";
import { type APIConnectOptions, initializeLogger, tts } from "@livekit/agents";
import * as deepgram from "@livekit/agents-plugin-deepgram";
import type { AudioFrame } from "@livekit/rtc-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { quietly } from "../../conversation/framework-internals.js";
import { wordRecall } from "../../hearing/transcriber.js";
import { offlineEngines } from "../offline-speech-engines.js";

// One of the sentences PocketSphinx follows well from Flite's slt (hearing/pocketsphinx-transcriber.test.ts).
const SENTENCE = "I would like to book a table for two people tonight.";
const KEY = "dg-stand-in-key";
const MODEL = "aura-2-andromeda-en";
/** A fault is the plugin's to report at once, and a silent socket within half a second. */
const ONCE: APIConnectOptions = { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 500 };

let engines: SpeechEngines & { close(): void };
let server: DeepgramSpeakServer;
let unroute = () => undefined as unknown;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: "fatal" });
  engines = offlineEngines();
  server = await startDeepgramSpeakServer({ engines, apiKey: KEY });
  unroute = routeHttpsTo(server.url);
});
afterAll(async () => {
  unroute();
  await server?.close();
  engines?.close();
});
beforeEach(() => {
  server.setFault("none");
  server.requests.length = 0;
});

/**
 * The plugin's synthesize() asks `node:https` for `{hostname, port: 443}` whatever baseUrl's scheme and
 * port say, so no stand-in on a free loopback port can answer it as it stands. https' global agent opens
 * its connections to the stand-in's port instead, in plain HTTP: everything above the socket (method,
 * path, query, headers, body, the reading of the answer) is still the plugin's own.
 */
function routeHttpsTo(url: string): () => void {
  const { hostname, port } = new URL(url);
  const agent = https.globalAgent;
  agent.createConnection = () => connect(Number(port), hostname);
  return () => Reflect.deleteProperty(agent, "createConnection");
}

function voice(): { tts: deepgram.TTS; errors: { error: Error }[] } {
  const plugin = new deepgram.TTS({ apiKey: KEY, baseUrl: server.url, model: MODEL });
  const errors: { error: Error }[] = [];
  plugin.on("error", (error) => errors.push(error));
  return { tts: plugin, errors };
}

/** plugin.synthesize(text), its failure seen as the TTS's "error" event only (framework-internals.ts's quietly says why). */
function synthesize(plugin: deepgram.TTS, text: string): tts.ChunkedStream {
  const chunked = plugin.synthesize(text, ONCE);
  return quietly(chunked);
}

async function framesOf(audio: AsyncIterable<tts.SynthesizedAudio | typeof tts.SynthesizeStream.END_OF_STREAM>): Promise<AudioFrame[]> {
  const frames: AudioFrame[] = [];
  for await (const event of audio) if (event !== tts.SynthesizeStream.END_OF_STREAM) frames.push(event.frame);
  return frames;
}

async function heard(frames: AudioFrame[]): Promise<string> {
  const samples = new Int16Array(frames.reduce((n, frame) => n + frame.data.length, 0));
  let at = 0;
  for (const frame of frames) {
    samples.set(frame.data, at);
    at += frame.data.length;
  }
  return engines.transcribe({ samples, sampleRate: frames[0]?.sampleRate ?? 24_000 }, "en");
}

function speak(plugin: deepgram.TTS): tts.SynthesizeStream {
  const stream = plugin.stream({ connOptions: ONCE });
  stream.pushText(SENTENCE);
  stream.flush();
  stream.endInput();
  return stream;
}

describe("Deepgram's TTS through its stand-in", () => {
  it("synthesize(): POSTs the text to /v1/speak, and its raw linear16 comes back as frames that say it", async () => {
    const { tts: plugin, errors } = voice();
    const frames = await framesOf(synthesize(plugin, SENTENCE));
    expect(errors).toEqual([]);
    expect(frames.every((frame) => frame.sampleRate === 24_000 && frame.channels === 1)).toBe(true);
    expect(wordRecall(SENTENCE, await heard(frames))).toBeGreaterThanOrEqual(0.5);
    expect(server.requests).toMatchObject([
      {
        transport: "http",
        model: MODEL,
        encoding: "linear16",
        sampleRate: 24_000,
        text: SENTENCE,
        apiKey: KEY,
        query: { container: "none" },
      },
    ]);
  });

  it("stream(): Speaks the sentence on /v1/speak's websocket, Flushes, and hears the audio until Flushed", async () => {
    const { tts: plugin, errors } = voice();
    const frames = await framesOf(speak(plugin));
    expect(errors).toEqual([]);
    expect(frames.every((frame) => frame.sampleRate === 24_000)).toBe(true);
    expect(wordRecall(SENTENCE, await heard(frames))).toBeGreaterThanOrEqual(0.5);
    const [request] = server.requests;
    expect(request).toMatchObject({ transport: "websocket", model: MODEL, encoding: "linear16", sampleRate: 24_000, apiKey: KEY });
    expect(request?.text).toBe(`${SENTENCE} `);
    // The stream's own Flush, then its goodbye: one more Flush and a Close.
    await until(() => request?.messages.some((m) => m.type === "Close"), { what: "the Close" });
    expect(request?.messages).toEqual([{ type: "Speak", text: `${SENTENCE} ` }, { type: "Flush" }, { type: "Flush" }, { type: "Close" }]);
  });

  describe("faults", () => {
    it("a refused upgrade (503) fails the stream with no audio", async () => {
      server.setFault("refuse");
      const { tts: plugin, errors } = voice();
      expect(await framesOf(speak(plugin))).toEqual([]);
      expect(errors.map((e) => e.error.message)).toEqual([expect.stringContaining("Unexpected server response: 503")]);
      expect(server.requests).toMatchObject([{ transport: "websocket", apiKey: KEY }]);
    });

    it("a socket broken mid-audio fails the stream after the audio that came", async () => {
      server.setFault("midway");
      const { tts: plugin, errors } = voice();
      await framesOf(speak(plugin));
      expect(errors.map((e) => e.error.message)).toEqual(["Deepgram websocket connection closed unexpectedly"]);
    });

    it("a socket that never answers fails once the plugin's idle timeout (connOptions.timeoutMs) passes", async () => {
      server.setFault("hang");
      const { tts: plugin, errors } = voice();
      expect(await framesOf(speak(plugin))).toEqual([]);
      expect(errors.map((e) => e.error.message)).toEqual(["Deepgram TTS recv idle timeout"]);
    });

    it("synthesize() refused (503) fails, without a retry (the plugin's error is not an APIError)", async () => {
      server.setFault("refuse");
      const { tts: plugin, errors } = voice();
      expect(await framesOf(synthesize(plugin, SENTENCE))).toEqual([]);
      expect(errors.map((e) => e.error.message)).toEqual(["Deepgram TTS HTTP request failed: 503 Service Unavailable"]);
      expect(server.requests).toHaveLength(1);
    });

    it("synthesize() broken mid-body ends with the audio that came and no error: the plugin ignores the abort", async () => {
      const whole = (await framesOf(synthesize(voice().tts, SENTENCE))).length;
      server.setFault("midway");
      const { tts: plugin, errors } = voice();
      const frames = await framesOf(synthesize(plugin, SENTENCE));
      expect(frames.length).toBeGreaterThan(0);
      expect(frames.length).toBeLessThan(whole);
      expect(errors).toEqual([]);
    });

    it("synthesize() that never answers is cut off by its caller: the plugin has no timeout of its own", async () => {
      server.setFault("hang");
      const { tts: plugin, errors } = voice();
      const chunked = synthesize(plugin, SENTENCE);
      const reading = framesOf(chunked);
      await until(() => server.requests.length === 1, { what: "the request" });
      chunked.close();
      expect(await reading).toEqual([]);
      expect(errors).toEqual([]);
    });
  });
});
