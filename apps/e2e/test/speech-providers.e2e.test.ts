/**
 * The digital human's ears and voices by configuration, with real parts: LiveKit, the service, the worker
 * with its speech pointed at the testkit's stand-ins of the providers (each at its wire protocol, hearing
 * with PocketSphinx and speaking with Flite, so real words go both ways) through LiveKit's own plugins,
 * the demo, and Chromium whose fake microphone asks a question in Flite's voice.
 *
 * First OpenAI's speech endpoints for both (DHS_STT_PROVIDER=openai, an `openai` voice): the greeting and
 * the reply are spoken by the provider, the question reaches the LLM as the stand-in heard it; the voice
 * failing midway is heard in the offline voice; the ears failing are the spoken apology, and the LLM is
 * never asked; a Spanish digital human on an eSpeak voice is heard in Spanish. Then Deepgram's ears
 * and an ElevenLabs voice. Each prints its turns' response times, against the offline engines' in
 * conversation.e2e.test.ts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus } from "node:os";
import { createClient, type DhsClient } from "@dhs/client";
import { LOG, STEP } from "@dhs/digital-human/log-lines";
import { offlineEngines } from "@dhs/digital-human/offline-speech-engines";
import { wordRecall } from "@dhs/digital-human/transcriber";
import {
  ChatCompletionsServer,
  type ChatRequest,
  type DeepgramListenServer,
  type ElevenLabsServer,
  messageText,
  type OpenAiSpeechServer,
  type SpeechEngines,
  startDeepgramListenServer,
  startElevenLabsServer,
  startOpenAiSpeechServer,
  until,
} from "@dhs/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { askingMicrophone, joinDemo, launchBrowser } from "./support/demo-page.js";
import { median, readMediaProbe, SPEAKING_RMS, startMediaProbe } from "./support/media-probe.js";
import { cpuBetween, treeCpu } from "./support/process-cpu.js";
import { ARTIFACTS, DEV_API_KEY, FACE, type Stack, startStack, TIMEOUTS } from "./support/stack.js";
import { type LogLine, turnTimelines, workerLines } from "./support/worker-timeline.js";

const QUESTION = "What will the weather be like in Lisbon tomorrow morning?";
const QUIET_S = 8;
const GREETING = "Hello, I am Nova, ask me about the weather.";
const REPLY = "It will be sunny in Lisbon tomorrow morning.";
const SPANISH_REPLY = "Mañana por la mañana hará sol en Lisboa.";
/** The first sentence of what the digital human says for a turn it could not hear (conversation-agent.ts's NOT_HEARD). */
const NOT_HEARD = "Sorry, I didn't catch that.";
const KEY = "sk-speech-stand-in";

/** The default catalog's voices (the offline ones), with the providers' voices the tests speak with. */
const OFFLINE_VOICES = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve("@dhs/catalog/digital-humans.json"), "utf8")) as { voices: object[] }
).voices;
const CATALOG = {
  voices: [
    ...OFFLINE_VOICES,
    { id: "nova", name: "Nova", language: "en", provider: "openai", provider_voice: "nova", model: "tts-1" },
    {
      id: "rachel",
      name: "Rachel",
      language: "en",
      provider: "elevenlabs",
      provider_voice: "21m00Tcm4TlvDq8ikWAM",
      model: "eleven_flash_v2_5",
    },
  ],
  hearing_languages: ["en", "es"],
};

let engines: SpeechEngines & { close(): void };
let llm: ChatCompletionsServer;
let browser: Browser;

beforeAll(async () => {
  engines = offlineEngines();
  llm = await new ChatCompletionsServer({ apiKey: "sk-e2e", script: () => ({ tokens: [REPLY], firstTokenMs: 100 }) }).start();
  browser = await launchBrowser(await askingMicrophone(QUESTION, QUIET_S, "e2e-speech-providers-asks", 4));
});
afterAll(async () => {
  await browser?.close();
  await llm?.stop();
  engines?.close();
});

type Caption = { who: string; text: string };
const captionsOf = (page: Page) => page.evaluate(() => (window as unknown as { demo: { captions: Caption[] } }).demo.captions);
const said = async (page: Page, who: "digital_human" | "you") => (await captionsOf(page)).filter((c) => c.who === who).map((c) => c.text);

/**
 * A session of a new digital human joined in the demo, until the digital human's line `last` was heard
 * whole (its transcript has it, which the worker posts as a line ends unless it was cut); its timeline printed.
 */
async function converse(
  stack: Stack,
  api: DhsClient,
  body: Parameters<DhsClient["createDigitalHuman"]>[0],
  last: string,
  what: string,
  turns = 1,
): Promise<{ sessionId: string; lines: LogLine[]; digitalHuman: string[]; participant: string[]; heardMs: number }> {
  const { data: created, error } = await api.createDigitalHuman(body);
  if (!created) throw new Error(`createDigitalHuman: ${JSON.stringify(error)}`);
  const { page, sessionId } = await joinDemo(stack.demoUrl, browser, `?identity=ada&digital_human_id=${created.id}`);
  try {
    await startMediaProbe(page, FACE.mouth, FACE.size);
    const heardWhole = async (times: number) => {
      const { data } = await api.getSessionTranscript(sessionId, { limit: 500 });
      const lines = data?.segments.filter((segment) => segment.speaker === "digital_human" && segment.text === last) ?? [];
      return lines.length >= times && !workerLines(stack.logs, sessionId).some((l) => l.msg === LOG.cutOff && l.text === last)
        ? true
        : undefined;
    };
    await until(() => heardWhole(1), { what, timeoutMs: 90_000 });
    if (turns > 1) {
      // The worker's CPU over the turns after the first, the job's start behind it: what a conversing session costs.
      const [before, from] = [treeCpu(stack.workerPid), Date.now()];
      await until(() => heardWhole(turns), { what: `${what}, ${turns} turns`, timeoutMs: 30_000 * turns });
      const share = cpuBetween(before, treeCpu(stack.workerPid)) / (Date.now() - from);
      console.log(
        `${what}: the worker's CPU over ${turns - 1} turns of a conversing session: ${(share * 100).toFixed(1)}% of a core (${Math.floor((0.7 * cpus().length) / share)} such sessions to a ${cpus().length}-core worker at LiveKit's target load of 0.7)`,
      );
    }
    const probe = await readMediaProbe(page);
    await page.screenshot({ path: `${ARTIFACTS}e2e-speech-${created.name.toLowerCase()}.png` });
    const lines = workerLines(stack.logs, sessionId);
    const timelines = turnTimelines(lines, probe.audio);
    console.log(`${what}: the digital human said ${JSON.stringify(await said(page, "digital_human"))}`);
    console.table(timelines);
    const toHeard = timelines.map((t) => t["first audio heard (browser)"]).filter((t): t is number => t !== undefined);
    if (toHeard.length > 0)
      console.log(`${what}: median end of speech -> first word heard: ${median(toHeard)} ms over ${toHeard.length} turns`);
    return {
      sessionId,
      lines,
      digitalHuman: await said(page, "digital_human"),
      participant: await said(page, "you"),
      heardMs: probe.audio.filter((s) => s.rms > SPEAKING_RMS).length * 50,
    };
  } finally {
    await page.close();
    await api.endSession(sessionId).catch(() => undefined);
    await stack.untilWorkerIdle();
    await api.deleteDigitalHuman(created.id).catch(() => undefined);
  }
}

const metric = async (stack: Stack, line: RegExp) => Number((await (await fetch(stack.workerMetricsUrl)).text()).match(line)?.[1] ?? 0);

/** Turns each measured conversation has (the first, with the job's start, is left out of its CPU). */
const MEASURED_TURNS = 4;

describe("the offline engines (PocketSphinx, Flite), as the baseline", () => {
  let stack: Stack;
  let api: DhsClient;

  beforeAll(async () => {
    stack = await startStack(
      inject("livekitServer"),
      TIMEOUTS,
      "all",
      { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: "sk-e2e" },
      {},
      // English heard only: the worker refuses a catalog asking PocketSphinx for more.
      { voices: CATALOG.voices },
    );
    api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("converses turn after turn, its response time and CPU printed", async () => {
    const c = await converse(stack, api, { name: "Ava", voice: "slt", greeting: GREETING }, REPLY, "offline engines", MEASURED_TURNS);
    expect(c.lines.find((l) => l.msg === LOG.speech)).toMatchObject({ stt: "pocketsphinx", voice: "slt", spoken_by: "slt" });
    expect(c.digitalHuman.filter((line) => line === REPLY).length).toBeGreaterThanOrEqual(MEASURED_TURNS);
  });
});

describe("ears and a voice on OpenAI's speech endpoints", () => {
  let openAi: OpenAiSpeechServer;
  let stack: Stack;
  let api: DhsClient;

  beforeAll(async () => {
    openAi = await startOpenAiSpeechServer({ engines, apiKey: KEY });
    stack = await startStack(
      inject("livekitServer"),
      TIMEOUTS,
      "all",
      {
        OPENAI_BASE_URL: llm.baseUrl,
        OPENAI_API_KEY: "sk-e2e",
        DHS_STT_PROVIDER: "openai",
        DHS_STT_BASE_URL: openAi.url,
        DHS_STT_API_KEY: KEY,
        DHS_TTS_OPENAI_BASE_URL: openAi.url,
        DHS_TTS_OPENAI_API_KEY: KEY,
        DHS_TTS_TIMEOUT_S: "3",
      },
      {},
      CATALOG,
    );
    api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
  });
  afterAll(async () => {
    await stack?.stop();
    await openAi?.close();
  });

  it("greets and answers in the provider's voice, the question reaching the LLM as the provider heard it", async () => {
    const asked = llm.requests.length;
    const c = await converse(
      stack,
      api,
      { name: "Nova", voice: "nova", greeting: GREETING },
      REPLY,
      "openai voice and ears",
      MEASURED_TURNS,
    );
    // Spoken by the provider, sentence by sentence: the greeting and the reply, in the catalog's voice and model.
    const spoken = openAi.speeches.map((s) => s.input.trim());
    expect(wordRecall(`${GREETING} ${REPLY}`, spoken.join(" "))).toBe(1);
    expect(openAi.speeches.every((s) => s.voice === "nova" && s.model === "tts-1" && s.apiKey === KEY)).toBe(true);
    expect(c.lines.find((l) => l.msg === LOG.speech)).toMatchObject({ stt: "openai", voice: "nova", spoken_by: "openai", language: "en" });
    expect(c.digitalHuman.slice(0, 2)).toEqual([GREETING, REPLY]);
    expect(c.heardMs).toBeGreaterThan(2000);
    // Heard by the provider: what it wrote down is the participant's caption and the LLM's user turn.
    const heard = openAi.transcriptions.filter((t) => t.text.trim() !== "").map((t) => t.text.trim());
    expect(heard.length).toBeGreaterThan(0);
    expect(openAi.transcriptions.every((t) => t.language === "en" && t.apiKey === KEY)).toBe(true);
    const question = messageText((llm.requests.slice(asked)[0] as ChatRequest).messages.filter((m) => m.role === "user").at(-1) as never);
    expect(heard).toContain(question.trim());
    expect(c.participant).toContain(question.trim());
  });

  it("says the reply in the offline voice when the provider's voice breaks midway, and counts it", async () => {
    const before = await metric(stack, /^dhs_worker_tts_fallbacks_total\{provider="openai"\} (\d+)$/m);
    openAi.setFault("speech", "midway");
    try {
      const c = await converse(stack, api, { name: "Nova", voice: "nova", greeting: GREETING }, REPLY, "openai voice failing");
      expect(c.digitalHuman.slice(0, 2)).toEqual([GREETING, REPLY]);
      expect(c.heardMs).toBeGreaterThan(2000);
      expect(c.lines.some((l) => l.msg === LOG.voiceFallback)).toBe(true);
      expect(await metric(stack, /^dhs_worker_tts_fallbacks_total\{provider="openai"\} (\d+)$/m)).toBeGreaterThan(before);
    } finally {
      openAi.setFault("speech", "none");
    }
  });

  it("says once it did not catch that when the provider's ears fail, and never asks the LLM", async () => {
    const asked = llm.requests.length;
    const failures = await metric(stack, /^dhs_worker_stt_failures_total (\d+)$/m);
    openAi.setFault("transcriptions", "refuse");
    try {
      const c = await converse(stack, api, { name: "Nova", voice: "nova", greeting: GREETING }, NOT_HEARD, "openai ears failing");
      expect(c.digitalHuman.slice(0, 2)).toEqual([GREETING, NOT_HEARD]);
      expect(llm.requests.length).toBe(asked);
      expect(c.lines.some((l) => l.step === STEP.llmRequest)).toBe(false);
      expect(await metric(stack, /^dhs_worker_stt_failures_total (\d+)$/m)).toBeGreaterThan(failures);
    } finally {
      openAi.setFault("transcriptions", "none");
    }
  });

  it("hears a Spanish digital human in Spanish, and its LLM answers in it, in an eSpeak voice", async () => {
    const asked = llm.requests.length;
    const transcribed = openAi.transcriptions.length;
    const spoken = openAi.speeches.length;
    llm.script = () => ({ tokens: [SPANISH_REPLY], firstTokenMs: 100 });
    try {
      const c = await converse(
        stack,
        api,
        { name: "Sofia", voice: "espeak-es", greeting: "¡Hola! Soy Sofía." },
        SPANISH_REPLY,
        "a Spanish digital human",
      );
      expect(c.lines.find((l) => l.msg === LOG.speech)).toMatchObject({
        stt: "openai",
        voice: "espeak-es",
        spoken_by: "espeak-es",
        language: "es",
      });
      expect(openAi.transcriptions.slice(transcribed).every((t) => t.language === "es")).toBe(true);
      expect(openAi.speeches.length).toBe(spoken);
      const system = messageText((llm.requests[asked] as ChatRequest).messages[0] as never);
      expect(system).toContain("Always answer in Spanish (es)");
      expect(c.heardMs).toBeGreaterThan(1000);
    } finally {
      llm.script = () => ({ tokens: [REPLY], firstTokenMs: 100 });
    }
  });
});

describe("Deepgram's ears and an ElevenLabs voice", () => {
  let listen: DeepgramListenServer;
  let eleven: ElevenLabsServer;
  let stack: Stack;
  let api: DhsClient;

  beforeAll(async () => {
    [listen, eleven] = await Promise.all([
      startDeepgramListenServer({ engines, apiKey: KEY }),
      startElevenLabsServer({ engines, apiKey: KEY }),
    ]);
    stack = await startStack(
      inject("livekitServer"),
      TIMEOUTS,
      "all",
      {
        OPENAI_BASE_URL: llm.baseUrl,
        OPENAI_API_KEY: "sk-e2e",
        DHS_STT_PROVIDER: "deepgram",
        DHS_STT_BASE_URL: listen.url,
        DHS_STT_API_KEY: KEY,
        DHS_TTS_ELEVENLABS_API_KEY: KEY,
        DHS_TTS_ELEVENLABS_BASE_URL: eleven.url,
      },
      {},
      CATALOG,
    );
    api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([listen?.close(), eleven?.close()]);
  });

  it("greets and answers in the ElevenLabs voice, the question reaching the LLM as Deepgram heard it", async () => {
    const asked = llm.requests.length;
    const c = await converse(
      stack,
      api,
      { name: "Rachel", voice: "rachel", greeting: GREETING },
      REPLY,
      "deepgram ears, elevenlabs voice",
      MEASURED_TURNS,
    );
    expect(c.lines.find((l) => l.msg === LOG.speech)).toMatchObject({ stt: "deepgram", voice: "rachel", spoken_by: "elevenlabs" });
    expect(c.digitalHuman.slice(0, 2)).toEqual([GREETING, REPLY]);
    expect(c.heardMs).toBeGreaterThan(2000);
    expect(wordRecall(`${GREETING} ${REPLY}`, eleven.requests.map((r) => r.text).join(" "))).toBe(1);
    expect(eleven.requests.every((r) => r.voiceId === "21m00Tcm4TlvDq8ikWAM" && r.apiKey === KEY)).toBe(true);
    const heard = listen.sessions.flatMap((s) => s.transcripts).map((t) => t.trim());
    expect(listen.sessions.every((s) => s.language === "en" && s.apiKey === KEY)).toBe(true);
    // The turn's finals, as the LLM was given them: every word Deepgram wrote down, and nothing else.
    const question = messageText((llm.requests.slice(asked)[0] as ChatRequest).messages.filter((m) => m.role === "user").at(-1) as never);
    expect(wordRecall(question, heard.join(" "))).toBe(1);
    expect(c.participant).toContain(question.trim());
  });
});
