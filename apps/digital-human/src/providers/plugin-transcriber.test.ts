/**
 * A provider's speech-to-text as the digital human's Transcriber, through the real plugins against the
 * testkit's stand-ins (OpenAI's transcriptions endpoint, Deepgram's `/v1/listen`), which hear with
 * PocketSphinx: a turn's words come back in the session's language, and a provider that refuses, hangs
 * or breaks off fails the turn within the bound (the conversation then says it did not catch that).
 */
import {
  type DeepgramListenServer,
  type OpenAiSpeechServer,
  type Speech,
  type SpeechEngines,
  type StandInFault,
  startDeepgramListenServer,
  startOpenAiSpeechServer,
  until,
} from "@dhs/testkit";
import { initializeLogger } from "@livekit/agents";
import * as deepgram from "@livekit/agents-plugin-deepgram";
import * as openai from "@livekit/agents-plugin-openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RECOGNITION_RATE } from "../hearing/pocketsphinx-transcriber.js";
import { wordRecall } from "../hearing/transcriber.js";
import { resample } from "../speaking/audio.js";
import { offlineEngines } from "./offline-speech-engines.js";
import { PluginTranscriber } from "./plugin-transcriber.js";

const SENTENCE = "I would like to book a table for two people tonight.";
// The stand-in decodes a whole utterance with PocketSphinx once it ends: a second or two on a busy machine.
const TIMEOUT_MS = 4000;
const FAULT_TIMEOUT_MS = 800;

let engines: SpeechEngines & { close(): void };
let openAi: OpenAiSpeechServer;
let listen: DeepgramListenServer;
let turnAudio: Speech;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: "fatal" });
  engines = offlineEngines();
  [openAi, listen] = await Promise.all([
    startOpenAiSpeechServer({ engines, apiKey: "sk" }),
    startDeepgramListenServer({ engines, apiKey: "dg" }),
  ]);
  const spoken = await engines.synthesize(SENTENCE, undefined);
  // The turn as the session's VAD hands it over: 16 kHz, with the quiet that ended it.
  const samples = resample(spoken.samples, spoken.sampleRate, RECOGNITION_RATE);
  const withQuiet = new Int16Array(samples.length + RECOGNITION_RATE);
  withQuiet.set(samples);
  turnAudio = { samples: withQuiet, sampleRate: RECOGNITION_RATE };
});
afterAll(async () => {
  await Promise.all([openAi?.close(), listen?.close()]);
  engines?.close();
});
beforeEach(() => {
  openAi.setFault("all", "none");
  listen.setFault("none");
});

const EARS = {
  openai: {
    make: (language: string) => new openai.STT({ baseURL: openAi.url, apiKey: "sk", model: "whisper-1", language, useRealtime: false }),
    fault: (fault: StandInFault) => openAi.setFault("transcriptions", fault),
    languageAsked: () => openAi.transcriptions.at(-1)?.language,
    // Answers only once asked, at the turn's end.
    answered: () => async () => undefined,
  },
  deepgram: {
    make: (language: string) => new deepgram.STT({ apiKey: "dg", baseUrl: listen.url, model: "nova-3", language, interimResults: false }),
    fault: (fault: StandInFault) => listen.setFault(fault),
    languageAsked: () => listen.sessions.at(-1)?.language,
    /** Waits for the final of the turn about to start: its stream is the next one the stand-in takes. */
    answered: () => {
      const next = listen.sessions.length;
      return () => until(() => (listen.sessions[next]?.transcripts.length ?? 0) > 0, { what: "Deepgram's final of the utterance" });
    },
  },
};

/**
 * One turn, its audio given in 20 ms pieces, ended as the session's VAD ends it: after its quiet, by which
 * time a streaming provider has answered what it heard (`answered`: Deepgram's final of the utterance).
 */
async function turn(transcriber: PluginTranscriber, answered: () => Promise<unknown> = async () => undefined): Promise<string> {
  const t = transcriber.startTurn();
  const piece = RECOGNITION_RATE / 50;
  for (let at = 0; at < turnAudio.samples.length; at += piece) {
    t.hear({ samples: turnAudio.samples.subarray(at, at + piece), sampleRate: RECOGNITION_RATE });
  }
  await answered();
  return t.end();
}

describe.each(["openai", "deepgram"] as const)("the %s speech-to-text as a turn's transcriber", (which) => {
  const ears = EARS[which];

  it("hears the turn's words, asking in the session's language", async () => {
    const words = await turn(new PluginTranscriber(ears.make("es"), TIMEOUT_MS), ears.answered());
    expect(wordRecall(SENTENCE, words)).toBeGreaterThanOrEqual(0.5);
    expect(ears.languageAsked()).toBe("es");
  });

  it("hears turn after turn with one plugin", async () => {
    const transcriber = new PluginTranscriber(ears.make("en"), TIMEOUT_MS);
    for (let i = 0; i < 2; i++) expect(wordRecall(SENTENCE, await turn(transcriber, ears.answered()))).toBeGreaterThanOrEqual(0.5);
  });

  it.each(["refuse", "hang", "midway"] as const)(
    "fails the turn, within its bound, when the provider's answers %s; the next turn is heard",
    async (fault) => {
      // The same plugin for both turns; the failing one bounded short, as it has no words to wait for.
      const plugin = ears.make("en");
      ears.fault(fault);
      await expect(turn(new PluginTranscriber(plugin, FAULT_TIMEOUT_MS))).rejects.toBeDefined();
      ears.fault("none");
      expect(wordRecall(SENTENCE, await turn(new PluginTranscriber(plugin, TIMEOUT_MS), ears.answered()))).toBeGreaterThanOrEqual(0.5);
    },
  );

  it("gives no words, without asking, for a turn with no audio", async () => {
    const transcriber = new PluginTranscriber(ears.make("en"), TIMEOUT_MS);
    const asked = () => [openAi.transcriptions.length, listen.sessions.length];
    const before = asked();
    expect(await transcriber.startTurn().end()).toBe("");
    expect(asked()).toEqual(before);
  });
});
