/**
 * The digital human's OpenAI ears and voice on the wire: the real `@livekit/agents-plugin-openai` STT
 * (the transcriptions endpoint) and TTS against the testkit's OpenAI speech stand-in, Flite speaking and
 * PocketSphinx hearing on both sides, so a test passes only when the plugin's URL, key, upload, fields
 * and decoding of the audio are all as OpenAI has them, and each fault ends the plugin's request rather
 * than the test.
 */
import { type OpenAiSpeechServer, type SpeechEngines, startOpenAiSpeechServer } from "@dhs/testkit";
import { initializeLogger, stt, type tts } from "@livekit/agents";
import * as openai from "@livekit/agents-plugin-openai";
import { AudioFrame } from "@livekit/rtc-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { wordRecall } from "../../hearing/transcriber.js";
import { offlineEngines } from "../offline-speech-engines.js";

// Sentences PocketSphinx follows well from Flite's slt (hearing/pocketsphinx-transcriber.test.ts).
const HEARD = "The quick brown fox jumps over the lazy dog.";
const SPOKEN = "I would like to book a table for two people tonight.";
const KEY = "sk-stand-in-key";
/** The plugins take no timeout of their own (OpenAI's SDK waits 10 minutes): a hung request is cut off by its caller. */
const DEADLINE_MS = 1_000;

type TTSError = Parameters<tts.TTSCallbacks["error"]>[0];

let engines: SpeechEngines & { close(): void };
let server: OpenAiSpeechServer;
let recording: AudioFrame;
/**
 * The framework reports a failed TTS request as an `error` event and then rejects the request's task with
 * the same error, which nobody awaits (its job process logs such rejections); the test takes them too,
 * but only those: anything else left unhandled still fails it.
 */
const reported = new Set<unknown>();
const unhandled: unknown[] = [];
const takeRejection = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  initializeLogger({ pretty: false, level: "warn" });
  process.on("unhandledRejection", takeRejection);
  engines = offlineEngines();
  server = await startOpenAiSpeechServer({ engines, apiKey: KEY });
  const speech = await engines.synthesize(HEARD, undefined);
  recording = new AudioFrame(speech.samples, speech.sampleRate, 1, speech.samples.length);
});
afterAll(async () => {
  await server?.close();
  engines?.close();
  // Node reports a rejection left unhandled once the microtasks have run: a turn of the loop lets the last one in.
  await new Promise((resolve) => setImmediate(resolve));
  process.off("unhandledRejection", takeRejection);
  expect(unhandled.filter((reason) => !reported.has(reason))).toEqual([]);
});
beforeEach(() => {
  server.setFault("all", "none");
  server.transcriptions.length = 0;
  server.speeches.length = 0;
});

function ears(apiKey = KEY): openai.STT {
  return new openai.STT({ baseURL: server.url, apiKey, model: "whisper-1", language: "en", useRealtime: false });
}

function voice(): { plugin: openai.TTS; errors: TTSError[] } {
  const plugin = new openai.TTS({ baseURL: server.url, apiKey: KEY, voice: "alloy", model: "tts-1" });
  const errors: TTSError[] = [];
  plugin.on("error", (error) => {
    errors.push(error);
    reported.add(error.error);
  });
  return { plugin, errors };
}

async function framesOf(audio: AsyncIterable<tts.SynthesizedAudio>): Promise<AudioFrame[]> {
  const frames: AudioFrame[] = [];
  for await (const event of audio) frames.push(event.frame);
  return frames;
}

function heard(frames: AudioFrame[]): Promise<string> {
  const samples = new Int16Array(frames.reduce((n, frame) => n + frame.data.length, 0));
  let at = 0;
  for (const frame of frames) {
    samples.set(frame.data, at);
    at += frame.data.length;
  }
  return engines.transcribe({ samples, sampleRate: frames[0]?.sampleRate ?? 24_000 }, "en");
}

describe("OpenAI's STT through its stand-in", () => {
  it("recognize(): uploads the recording as a WAV with the model and language, and its words come back", async () => {
    const event = await ears().recognize(recording);
    expect(event.type).toBe(stt.SpeechEventType.FINAL_TRANSCRIPT);
    const text = event.alternatives?.[0]?.text ?? "";
    expect(wordRecall(HEARD, text)).toBeGreaterThanOrEqual(0.5);
    expect(event.alternatives?.[0]?.language).toBe("en");
    expect(server.transcriptions).toMatchObject([
      { model: "whisper-1", language: "en", responseFormat: "json", fileName: "audio.wav", apiKey: KEY, fault: "none", text },
    ]);
    expect(server.transcriptions[0]?.audio.sampleRate).toBe(recording.sampleRate);
    expect(server.transcriptions[0]?.audio.samples.length).toBe(recording.samplesPerChannel);
  });

  it("a wrong key gets OpenAI's 401", async () => {
    await expect(ears("sk-wrong").recognize(recording)).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    expect(server.transcriptions).toEqual([]);
  });

  it("refused (503): recognize() fails with the status, and is not retried", async () => {
    server.setFault("transcriptions", "refuse");
    await expect(ears().recognize(recording)).rejects.toMatchObject({ status: 503, type: "server_error" });
    expect(server.transcriptions).toHaveLength(1);
  });

  it("broken after its headers: recognize() fails", async () => {
    server.setFault("transcriptions", "midway");
    await expect(ears().recognize(recording)).rejects.toThrow();
    expect(server.transcriptions).toMatchObject([{ fault: "midway" }]);
  });

  it("never answering: recognize() is cut off by its caller's deadline", async () => {
    server.setFault("transcriptions", "hang");
    await expect(ears().recognize(recording, AbortSignal.timeout(DEADLINE_MS))).rejects.toThrow(/aborted/i);
    expect(server.transcriptions).toMatchObject([{ fault: "hang" }]);
  });
});

describe("OpenAI's TTS through its stand-in", () => {
  it("synthesize(): asks for pcm in the voice and model, and the 24 kHz frames that come back say the words", async () => {
    const { plugin, errors } = voice();
    const frames = await framesOf(plugin.synthesize(SPOKEN));
    expect(errors).toEqual([]);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((frame) => frame.sampleRate === 24_000 && frame.channels === 1)).toBe(true);
    expect(wordRecall(SPOKEN, await heard(frames))).toBeGreaterThanOrEqual(0.5);
    expect(server.speeches).toMatchObject([
      { model: "tts-1", voice: "alloy", input: SPOKEN, responseFormat: "pcm", speed: 1, apiKey: KEY },
    ]);
    await plugin.close();
  });

  it("refused (503): the stream fails with no audio, once (OpenAI's errors are not the framework's retryable ones)", async () => {
    server.setFault("speech", "refuse");
    const { plugin, errors } = voice();
    expect(await framesOf(plugin.synthesize(SPOKEN))).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toMatchObject({ status: 503 });
    expect(server.speeches).toHaveLength(1);
    await plugin.close();
  });

  it("broken midway through the audio: the stream fails, the plugin having waited for the whole body", async () => {
    server.setFault("speech", "midway");
    const { plugin, errors } = voice();
    expect(await framesOf(plugin.synthesize(SPOKEN))).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(server.speeches).toMatchObject([{ fault: "midway" }]);
    await plugin.close();
  });

  it("never answering: the stream fails at its caller's deadline", async () => {
    server.setFault("speech", "hang");
    const { plugin, errors } = voice();
    expect(await framesOf(plugin.synthesize(SPOKEN, undefined, AbortSignal.timeout(DEADLINE_MS)))).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error.message).toMatch(/aborted/i);
    await plugin.close();
  });
});
