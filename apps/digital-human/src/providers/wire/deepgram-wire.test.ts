/**
 * The digital human's Deepgram ears on the wire: the real `@livekit/agents-plugin-deepgram` STT streaming
 * to the testkit's Deepgram listen stand-in, which cuts the audio into utterances and has PocketSphinx
 * hear them, so a test passes only when the plugin's URL, query, key, audio and reading of Deepgram's
 * `Results` are all as Deepgram has them, and each fault ends (or, where the plugin retries by itself,
 * reopens) the stream rather than the test.
 */
import { type DeepgramListenServer, type SpeechEngines, startDeepgramListenServer, until } from "@dhs/testkit";
import { type APIConnectOptions, initializeLogger, stt } from "@livekit/agents";
import * as deepgram from "@livekit/agents-plugin-deepgram";
import { AudioFrame } from "@livekit/rtc-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { wordRecall } from "../../hearing/transcriber.js";
import { offlineEngines } from "../offline-speech-engines.js";

// A sentence PocketSphinx follows well from Flite's slt (hearing/pocketsphinx-transcriber.test.ts).
const SENTENCE = "The quick brown fox jumps over the lazy dog.";
const KEY = "dg-stand-in-key";
const RATE = 16_000;
/** 20 ms frames, as a room's microphone track gives them. */
const FRAME = RATE / 50;
/** A fault is the plugin's to report at once: no retries of the framework's, which would only repeat it. */
const ONCE: APIConnectOptions = { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 2000 };

type STTError = Parameters<stt.STTCallbacks["error"]>[0];

let engines: SpeechEngines & { close(): void };
let server: DeepgramListenServer;
/** The sentence, then 1.5 s of silence: the plugin stops sending after a second of it, past the endpoint. */
let utterance: AudioFrame[];

beforeAll(async () => {
  initializeLogger({ pretty: false, level: "warn" });
  engines = offlineEngines();
  server = await startDeepgramListenServer({ engines, apiKey: KEY });
  const speech = await engines.synthesize(SENTENCE, undefined);
  expect(speech.sampleRate).toBe(RATE);
  const audio = new Int16Array(speech.samples.length + 1.5 * RATE);
  audio.set(speech.samples);
  utterance = Array.from({ length: Math.ceil(audio.length / FRAME) }, (_, i) => {
    const frame = new Int16Array(FRAME);
    frame.set(audio.subarray(i * FRAME, (i + 1) * FRAME));
    return new AudioFrame(frame, RATE, 1, FRAME);
  });
});
afterAll(async () => {
  await server?.close();
  engines?.close();
});
beforeEach(() => {
  server.setFault("none");
  server.sessions.length = 0;
});

function ears(apiKey = KEY): { plugin: deepgram.STT; errors: STTError[] } {
  const plugin = new deepgram.STT({ apiKey, baseUrl: server.url, language: "en", model: "nova-3" });
  const errors: STTError[] = [];
  plugin.on("error", (error) => errors.push(error));
  return { plugin, errors };
}

describe("Deepgram's streaming STT through its stand-in", () => {
  it("streams linear16 to /v1/listen with the key and query, and each utterance comes back as a final transcript", async () => {
    const { plugin, errors } = ears();
    const stream = plugin.stream({ connOptions: ONCE });
    for (const frame of utterance) stream.pushFrame(frame);
    const events: stt.SpeechEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === stt.SpeechEventType.END_OF_SPEECH) break;
    }
    const finals = events.filter((e) => e.type === stt.SpeechEventType.FINAL_TRANSCRIPT);
    const text = finals.map((e) => e.alternatives?.[0]?.text ?? "").join(" ");
    expect(wordRecall(SENTENCE, text)).toBeGreaterThanOrEqual(0.5);
    expect(events[0]?.type).toBe(stt.SpeechEventType.START_OF_SPEECH);
    // The words' times are the utterance's, inside the audio sent.
    const first = finals[0]?.alternatives?.[0];
    expect(first?.language).toBe("en");
    expect(first?.words?.length).toBeGreaterThan(0);
    expect(first?.endTime).toBeGreaterThan(first?.startTime ?? Number.POSITIVE_INFINITY);

    stream.endInput();
    for await (const _ of stream) {
      // the rest: usage reports
    }
    expect(errors).toEqual([]);
    const [session] = server.sessions;
    expect(session).toMatchObject({
      model: "nova-3",
      language: "en",
      encoding: "linear16",
      sampleRate: RATE,
      channels: 1,
      interimResults: true,
      endpointing: 25,
      vadEvents: true,
      apiKey: KEY,
    });
    expect(session?.transcripts.join(" ")).toBe(text);
    expect(session?.query.punctuate).toEqual(["true"]);
    // The end of input is Deepgram's CloseStream, answered with Metadata and a normal close.
    await until(() => session?.closed !== undefined, { what: "the stream closed" });
    expect(session?.controls.at(-1)).toBe("CloseStream");
    expect(session?.closed?.code).toBe(1000);
    await plugin.close();
  });

  it("a wrong key is refused at the upgrade (401), which the plugin does not retry", async () => {
    const { plugin, errors } = ears("dg-wrong");
    const stream = plugin.stream();
    for (const frame of utterance.slice(0, 10)) stream.pushFrame(frame);
    for await (const _ of stream) {
      // nothing comes
    }
    expect(errors.map((e) => (e.error as { statusCode?: number }).statusCode)).toEqual([401]);
    expect(server.sessions).toEqual([]);
    await plugin.close();
  });

  describe("faults", () => {
    it("a refused upgrade (503) ends the stream with the status and no transcript", async () => {
      server.setFault("refuse");
      const { plugin, errors } = ears();
      const stream = plugin.stream({ connOptions: ONCE });
      for (const frame of utterance) stream.pushFrame(frame);
      const events: stt.SpeechEvent[] = [];
      for await (const event of stream) events.push(event);
      expect(events).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(errors[0]?.error).toMatchObject({ statusCode: 503 });
      expect(errors[0]?.recoverable).toBe(false);
      await plugin.close();
    });

    it("a socket broken at its first audio (1011): the plugin logs it and goes deaf, neither failing nor reopening", async () => {
      server.setFault("midway");
      const { plugin, errors } = ears();
      const stream = plugin.stream({ connOptions: ONCE });
      const events: stt.SpeechEvent[] = [];
      const reading = (async () => {
        for await (const event of stream) events.push(event);
      })();
      for (const frame of utterance) stream.pushFrame(frame);
      await until(() => server.sessions[0]?.closed, { what: "the broken stream" });
      expect(server.sessions[0]?.closed?.code).toBe(1011);
      // Its monitor of the socket is a Task it never awaits (Promise.all takes the Task, not its result):
      // the close is logged, and the rest of the audio goes to the closed socket until the caller closes.
      stream.close();
      await reading;
      expect(events.filter((e) => e.type === stt.SpeechEventType.FINAL_TRANSCRIPT)).toEqual([]);
      expect(errors).toEqual([]);
      expect(server.sessions).toHaveLength(1);
      await plugin.close();
    });

    it("a socket that never answers: no transcript comes, and the plugin waits until its caller closes it", async () => {
      server.setFault("hang");
      const { plugin, errors } = ears();
      const stream = plugin.stream({ connOptions: ONCE });
      const events: stt.SpeechEvent[] = [];
      const reading = (async () => {
        for await (const event of stream) events.push(event);
      })();
      for (const frame of utterance) stream.pushFrame(frame);
      // The end of input once the stream is open: ended before, the plugin never connects at all.
      await until(() => (server.sessions[0]?.audioBytes ?? 0) > 0, { what: "the audio" });
      stream.endInput();
      await until(() => server.sessions[0]?.controls.includes("CloseStream"), { what: "the CloseStream" });
      stream.close();
      await reading;
      expect(events.filter((e) => e.type === stt.SpeechEventType.FINAL_TRANSCRIPT)).toEqual([]);
      expect(errors).toEqual([]);
      expect(server.sessions[0]?.closed).toBeUndefined();
      await plugin.close();
    });
  });
});
