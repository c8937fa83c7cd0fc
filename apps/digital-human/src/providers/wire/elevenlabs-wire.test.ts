/**
 * The digital human's ElevenLabs voice on the wire: the real `@livekit/agents-plugin-elevenlabs` against
 * the testkit's ElevenLabs stand-in, Flite speaking for ElevenLabs and PocketSphinx hearing the plugin's
 * frames, so a test passes only when the plugin's URL, key, messages and decoding of the audio are all as
 * ElevenLabs has them, and each fault the stand-in can play ends the plugin's request rather than a test.
 */
import { type ElevenLabsServer, type SpeechEngines, startElevenLabsServer, until } from "@dhs/testkit";
import { type APIConnectOptions, initializeLogger, tts } from "@livekit/agents";
import * as elevenlabs from "@livekit/agents-plugin-elevenlabs";
import type { AudioFrame } from "@livekit/rtc-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { quietly } from "../../conversation/framework-internals.js";
import { wordRecall } from "../../hearing/transcriber.js";
import { offlineEngines } from "../offline-speech-engines.js";

// One of the sentences PocketSphinx follows well from Flite's slt (hearing/pocketsphinx-transcriber.test.ts).
const SENTENCE = "I would like to book a table for two people tonight.";
const KEY = "xi-stand-in-key";
const VOICE = "21m00Tcm4TlvDq8ikWAM";
const MODEL = "eleven_flash_v2_5";
/** A fault is the plugin's to report at once: no retries, which would only repeat it. */
const ONCE: APIConnectOptions = { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 2000 };

let engines: SpeechEngines & { close(): void };
let server: ElevenLabsServer;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: "fatal" });
  engines = offlineEngines();
  server = await startElevenLabsServer({ engines, apiKey: KEY });
});
afterAll(async () => {
  await server?.close();
  engines?.close();
});
beforeEach(() => {
  server.setFault("none");
  server.requests.length = 0;
});

function voice(): { tts: elevenlabs.TTS; errors: { error: Error }[] } {
  const plugin = new elevenlabs.TTS({ apiKey: KEY, baseURL: server.url, voiceId: VOICE, model: MODEL });
  const errors: { error: Error }[] = [];
  plugin.on("error", (error) => errors.push(error));
  return { tts: plugin, errors };
}

/** plugin.synthesize(text), its failure seen as the TTS's "error" event only (framework-internals.ts's quietly says why). */
function synthesize(plugin: elevenlabs.TTS, text: string): tts.ChunkedStream {
  const chunked = plugin.synthesize(text);
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
  return engines.transcribe({ samples, sampleRate: frames[0]?.sampleRate ?? 22_050 }, "en");
}

describe("ElevenLabs through its stand-in", () => {
  it("synthesize(): POSTs the text to the voice's /stream, and its PCM comes back as frames that say it", async () => {
    const { tts: plugin, errors } = voice();
    const frames = await framesOf(synthesize(plugin, SENTENCE));
    expect(errors).toEqual([]);
    expect(frames.every((frame) => frame.sampleRate === plugin.sampleRate && frame.channels === 1)).toBe(true);
    expect(plugin.sampleRate).toBe(22_050);
    expect(wordRecall(SENTENCE, await heard(frames))).toBeGreaterThanOrEqual(0.5);
    expect(server.requests).toMatchObject([
      { transport: "http", voiceId: VOICE, modelId: MODEL, outputFormat: "pcm_22050", text: SENTENCE, apiKey: KEY },
    ]);
    await plugin.close();
  });

  it("stream(): opens multi-stream-input, sends a context's text and closes it, and hears the context's audio", async () => {
    const { tts: plugin, errors } = voice();
    const stream = plugin.stream({ connOptions: ONCE });
    stream.pushText(SENTENCE);
    stream.flush();
    stream.endInput();
    const frames = await framesOf(stream);
    expect(errors).toEqual([]);
    expect(frames.every((frame) => frame.sampleRate === 22_050)).toBe(true);
    expect(wordRecall(SENTENCE, await heard(frames))).toBeGreaterThanOrEqual(0.5);
    const [request] = server.requests;
    expect(request).toMatchObject({ transport: "websocket", voiceId: VOICE, modelId: MODEL, outputFormat: "pcm_22050", apiKey: KEY });
    expect(request?.text).toContain(SENTENCE);
    const contextId = stream.contextId;
    expect(request?.messages[0]).toMatchObject({ text: " ", context_id: contextId, voice_settings: {} });
    expect(request?.messages).toContainEqual({ text: `${SENTENCE} `, context_id: contextId, flush: true });
    expect(request?.messages.at(-1)).toEqual({ context_id: contextId, close_context: true });
    await plugin.close();
  });

  describe("faults", () => {
    it("a refused upgrade (503) fails the stream with no audio", async () => {
      server.setFault("refuse");
      const { tts: plugin, errors } = voice();
      const stream = plugin.stream({ connOptions: ONCE });
      stream.pushText(SENTENCE);
      stream.endInput();
      expect(await framesOf(stream)).toEqual([]);
      expect(errors.map((e) => e.error.message)).toEqual(["could not connect to ElevenLabs"]);
      expect(server.requests).toMatchObject([{ transport: "websocket", apiKey: KEY }]);
      await plugin.close();
    });

    it("a socket broken mid-audio fails the stream", async () => {
      server.setFault("midway");
      const { tts: plugin, errors } = voice();
      const stream = plugin.stream({ connOptions: ONCE });
      stream.pushText(SENTENCE);
      stream.endInput();
      // Frames or none: the plugin reads its messages through a stream the break aborts, dropping what it still held.
      await framesOf(stream);
      expect(errors.map((e) => e.error.message)).toEqual(["ElevenLabs websocket connection closed unexpectedly"]);
      await plugin.close();
    });

    it("a socket that never answers: the plugin has no timeout of its own, so the reply is cut off by its caller", async () => {
      server.setFault("hang");
      const { tts: plugin, errors } = voice();
      const stream = plugin.stream({ connOptions: ONCE });
      stream.pushText(SENTENCE);
      stream.endInput();
      const reading = framesOf(stream);
      await until(() => server.requests[0]?.messages.some((m) => m.close_context === true), { what: "the context closed" });
      stream.close();
      expect(await reading).toEqual([]);
      expect(errors).toEqual([]);
      await plugin.close();
    });

    it("synthesize() refused (503) is retried as the framework's default says, then fails", async () => {
      server.setFault("refuse");
      const { tts: plugin, errors } = voice();
      expect(await framesOf(synthesize(plugin, SENTENCE))).toEqual([]);
      expect(errors.map((e) => (e.error as { statusCode?: number }).statusCode)).toEqual([503]);
      // synthesize() takes no connection options: 1 attempt and the default 3 retries.
      expect(server.requests).toHaveLength(4);
      await plugin.close();
    }, 15_000);

    it("synthesize() broken mid-body fails once its retries are spent", async () => {
      server.setFault("midway");
      const { tts: plugin, errors } = voice();
      await framesOf(synthesize(plugin, SENTENCE));
      expect(errors.map((e) => e.error.message)).toEqual(["Connection error: TypeError: terminated"]);
      expect(server.requests).toHaveLength(4);
      await plugin.close();
    }, 15_000);

    it("synthesize() that never answers is cut off by its caller, no timeout of its own either", async () => {
      server.setFault("hang");
      const { tts: plugin, errors } = voice();
      const chunked = synthesize(plugin, SENTENCE);
      const reading = framesOf(chunked);
      await until(() => server.requests.length === 1, { what: "the request" });
      chunked.close();
      expect(await reading).toEqual([]);
      expect(errors).toEqual([]);
      await plugin.close();
    });
  });
});
