/**
 * The provider's voice with the offline voice behind it, through the real plugins against the testkit's
 * stand-ins (ElevenLabs' websocket, OpenAI's speech endpoint), Flite speaking for both the stand-in and
 * the offline voice: a reply is always heard whole, in the offline voice from the sentence the provider
 * failed on, and the provider is asked again only after the pause.
 */
import {
  type ElevenLabsServer,
  type OpenAiSpeechServer,
  type SpeechEngines,
  type StandInFault,
  startElevenLabsServer,
  startOpenAiSpeechServer,
} from "@dhs/testkit";
import { initializeLogger, tokenize, tts } from "@livekit/agents";
import * as elevenlabs from "@livekit/agents-plugin-elevenlabs";
import * as openai from "@livekit/agents-plugin-openai";
import type { AudioFrame } from "@livekit/rtc-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { wordRecall } from "../hearing/transcriber.js";
import { FliteVoice } from "../speaking/flite-voice.js";
import { SAMPLE_RATE } from "../speaking/speaker.js";
import type { Voice } from "../speaking/voice.js";
import { VoiceTTS } from "../speaking/voice-tts.js";
import { FallbackTTS } from "./fallback-tts.js";
import { offlineEngines } from "./offline-speech-engines.js";

const FIRST = "I would like to book a table for two people tonight.";
const SECOND = "The weather will be sunny tomorrow morning.";
const TIMEOUT_MS = 600;

let engines: SpeechEngines & { close(): void };
let eleven: ElevenLabsServer;
let openAi: OpenAiSpeechServer;
let flite: FliteVoice;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: "fatal" });
  engines = offlineEngines();
  const found = FliteVoice.find();
  if (!("voice" in found)) throw new Error(found.missing);
  flite = found.voice;
  [eleven, openAi] = await Promise.all([
    startElevenLabsServer({ engines, apiKey: "xi" }),
    startOpenAiSpeechServer({ engines, apiKey: "sk" }),
  ]);
});
afterAll(async () => {
  await Promise.all([eleven?.close(), openAi?.close()]);
  engines?.close();
});
beforeEach(() => {
  eleven.setFault("none");
  eleven.requests.length = 0;
  openAi.setFault("speech", "none");
  openAi.speeches.length = 0;
});

const PROVIDERS = {
  elevenlabs: {
    make: () => new elevenlabs.TTS({ apiKey: "xi", baseURL: eleven.url, voiceId: "21m00Tcm4TlvDq8ikWAM", model: "eleven_flash_v2_5" }),
    fault: (fault: StandInFault) => eleven.setFault(fault),
    // Its sentences share one websocket, each in a context of its own; a refused upgrade is one ask.
    asked: () => eleven.requests.reduce((n, r) => n + Math.max(1, new Set(r.messages.map((m) => m.context_id).filter(Boolean)).size), 0),
  },
  openai: {
    make: () => new openai.TTS({ apiKey: "sk", baseURL: openAi.url, voice: "alloy", model: "tts-1" }),
    fault: (fault: StandInFault) => openAi.setFault("speech", fault),
    asked: () => openAi.speeches.length,
  },
};

/** A reply of two sentences through the framework's StreamAdapter, as the conversation speaks one. */
function voiced(which: keyof typeof PROVIDERS, clock = { now: 0 }) {
  const provider = PROVIDERS[which];
  const offlineSaid: string[] = [];
  // Flite itself, recording what it is asked: the offline voice is real, only watched.
  const offline: Voice = {
    synthesize: (text, _voice, signal) => {
      offlineSaid.push(text);
      if (signal?.aborted) return Promise.reject(new Error("aborted"));
      return flite.synthesize(text, "slt");
    },
  };
  const fallbacks: string[] = [];
  const fallback = new FallbackTTS(provider.make(), new VoiceTTS(offline, undefined, SAMPLE_RATE), SAMPLE_RATE, {
    timeoutMs: TIMEOUT_MS,
    onFallback: (why) => fallbacks.push(why),
    now: () => clock.now,
  });
  /** The reply's audio, heard by PocketSphinx only when `hear` (a decode is the test's costliest step). */
  const speak = async (sentences: string[], hear = true): Promise<string> => {
    const stream = new tts.StreamAdapter(fallback, new tokenize.basic.SentenceTokenizer()).stream();
    for (const sentence of sentences) stream.pushText(`${sentence} `);
    stream.endInput();
    const frames: AudioFrame[] = [];
    for await (const audio of stream) if (audio !== tts.SynthesizeStream.END_OF_STREAM) frames.push(audio.frame);
    expect(frames.length).toBeGreaterThan(0);
    return hear ? heard(frames) : "";
  };
  return { speak, offlineSaid, fallbacks, provider, clock };
}

async function heard(frames: AudioFrame[]): Promise<string> {
  const samples = new Int16Array(frames.reduce((n, frame) => n + frame.samplesPerChannel, 0));
  let at = 0;
  for (const frame of frames) {
    samples.set(frame.data.subarray(0, frame.samplesPerChannel), at);
    at += frame.samplesPerChannel;
  }
  return engines.transcribe({ samples, sampleRate: SAMPLE_RATE }, "en");
}

describe.each(["elevenlabs", "openai"] as const)("a %s voice with the offline voice behind it", (which) => {
  it("speaks the reply through the provider while it answers, the offline voice unasked", async () => {
    const v = voiced(which);
    const words = await v.speak([FIRST, SECOND]);
    expect(wordRecall(`${FIRST} ${SECOND}`, words)).toBeGreaterThanOrEqual(0.5);
    expect(v.provider.asked()).toBeGreaterThanOrEqual(2);
    expect([v.offlineSaid, v.fallbacks]).toEqual([[], []]);
  });

  it.each(["refuse", "hang", "midway"] as const)(
    "says the whole reply offline when the provider's answers %s, reported once",
    async (fault) => {
      const v = voiced(which);
      v.provider.fault(fault);
      const words = await v.speak([FIRST, SECOND]);
      // Every sentence offline: the first the provider failed, the second the offline voice's at once.
      expect(v.offlineSaid).toEqual([FIRST, SECOND]);
      expect(wordRecall(`${FIRST} ${SECOND}`, words)).toBeGreaterThanOrEqual(0.5);
      expect(v.fallbacks).toHaveLength(1);
    },
  );

  it("asks the provider again once the pause is over, and speaks through it when it answers", async () => {
    const v = voiced(which);
    v.provider.fault("refuse");
    await v.speak([FIRST], false);
    const asked = v.provider.asked();
    v.provider.fault("none");
    // Within the pause: the offline voice, the provider unasked.
    await v.speak([SECOND], false);
    expect([v.provider.asked(), v.offlineSaid]).toEqual([asked, [FIRST, SECOND]]);
    v.clock.now += 30_000;
    const words = await v.speak([FIRST]);
    expect(v.provider.asked()).toBeGreaterThan(asked);
    expect(v.offlineSaid).toEqual([FIRST, SECOND]);
    expect(wordRecall(FIRST, words)).toBeGreaterThanOrEqual(0.5);
    expect(v.fallbacks).toHaveLength(1);
  });
});
