/**
 * A backend driving a live session, with real parts: LiveKit, the service, the worker, the demo and
 * Chromium. What the backend says is heard by the browser (the energy of the digital human's audio),
 * captioned and in the transcript; a say sent before the participant joined waits for the greeting; an
 * interrupt silences the digital human; the per-turn webhook carries the participant's words, and a
 * backend that answers it with say (docs/backend.md, "Bring your own brain") is heard. The time from POST say to
 * the first sound of it in the browser is printed.
 */
import { writeFileSync } from "node:fs";
import { createClient, type DhsClient } from "@dhs/client";
import { FliteVoice } from "@dhs/digital-human/flite-voice";
import { wordRecall } from "@dhs/digital-human/transcriber";
import { wavFile } from "@dhs/digital-human/wav-file";
import { until, WebhookReceiver } from "@dhs/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type DemoState, demoState, launchBrowser } from "./support/demo-page.js";
import { median, readMediaProbe, SPEAKING_RMS, startMediaProbe } from "./support/media-probe.js";
import { ARTIFACTS, DEV_API_KEY, FACE, type Stack, startStack, TIMEOUTS } from "./support/stack.js";

const GREETING = "Hello, I am Nova from the front desk.";
const BEFORE = "Your room on the third floor is ready.";
const LONG =
  "Breakfast is served from seven until ten in the garden room. The pool opens at eight. The spa takes bookings at the desk. Late checkout can be arranged until two. The shuttle to the airport leaves every hour. This last sentence is never heard.";
/** The conversation tier's question, which the recognizer follows best (0.6-0.9 of its words). */
const QUESTION = "What will the weather be like in Lisbon tomorrow morning?";

let stack: Stack;
let silent: Browser;
let api: DhsClient;

beforeAll(async () => {
  stack = await startStack(inject("livekitServer"), TIMEOUTS, "all");
  api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
  silent = await launchBrowser();
});

afterAll(async () => {
  await silent?.close();
  await stack?.stop();
});

async function nova(): Promise<string> {
  const { data, error } = await api.createDigitalHuman({ name: "Nova", greeting: GREETING, voice: "slt" });
  if (!data) throw new Error(`createDigitalHuman: ${JSON.stringify(error)}`);
  return data.id;
}

/** Joins through the demo; `beforeJoin` runs once the session exists and before the page connects to it. */
async function join(browser: Browser, query: string, beforeJoin?: (sessionId: string) => Promise<void>) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 600 } });
  if (beforeJoin) {
    await page.route("**/api/sessions", async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { session_id: string };
      await beforeJoin(body.session_id);
      await route.fulfill({ response, json: body });
    });
  }
  await page.goto(`${stack.demoUrl}/${query}`);
  await page.click("#join");
  await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.session !== null, null, { timeout: 30_000 });
  const sessionId = (await demoState(page)).session?.session_id as string;
  await startMediaProbe(page, FACE.mouth, FACE.size);
  return { page, sessionId };
}

const captions = async (page: Page) => (await demoState(page)).captions.filter((c) => c.who === "digital_human").map((c) => c.text);
const status = async (sessionId: string, id: string) => (await api.getUtterance(sessionId, id)).data?.status;

/** Says `text` and waits until the browser hears it: the ms from the POST to the first loud 50 ms of it. */
async function sayAndHear(page: Page, sessionId: string, text: string): Promise<{ id: string; heardMs: number }> {
  const postedAt = Date.now();
  const { data, error } = await api.say(sessionId, { text });
  if (!data) throw new Error(`say: ${JSON.stringify(error)}`);
  await until(async () => ((await status(sessionId, data.id)) === "spoken" ? true : undefined), {
    what: `"${text}" spoken`,
    timeoutMs: 30_000,
  });
  const heard = (await readMediaProbe(page)).audio.find((s) => s.at >= postedAt && s.rms > SPEAKING_RMS);
  if (!heard) throw new Error(`"${text}" was never heard`);
  return { id: data.id, heardMs: heard.at - postedAt };
}

describe("a backend drives a live session", () => {
  it("a say sent before the participant joined is said after the greeting, heard, captioned and in the transcript; then says are heard in time", async () => {
    const id = await nova();
    let before = "";
    const { page, sessionId } = await join(silent, `?identity=ines&digital_human_id=${id}`, async (session) => {
      const { data, error } = await api.say(session, { text: BEFORE });
      if (!data) throw new Error(`say before the join: ${JSON.stringify(error)}`);
      before = data.id;
    });
    try {
      await until(async () => ((await captions(page)).includes(BEFORE) ? true : undefined), { what: "the early say", timeoutMs: 45_000 });
      const said = await captions(page);
      const greeted = said.findIndex((text) => GREETING.startsWith(text));
      expect(greeted).toBeGreaterThanOrEqual(0);
      expect(greeted).toBeLessThan(said.indexOf(BEFORE));
      await until(async () => ((await status(sessionId, before)) === "spoken" ? true : undefined), { what: "spoken", timeoutMs: 15_000 });
      const utterance = (await api.getUtterance(sessionId, before)).data;
      expect(utterance?.delivered_at).not.toBeNull();
      expect(Date.parse(utterance?.delivered_at as string)).toBeLessThanOrEqual(Date.parse(utterance?.started_at as string));

      // Said once the page is idle: the time from POST say to its first sound in the browser.
      const heard: number[] = [];
      for (let i = 1; i <= 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 700));
        heard.push((await sayAndHear(page, sessionId, `Message number ${i} for you.`)).heardMs);
      }
      console.log(`POST say -> first audio heard in the browser: ${JSON.stringify(heard)} ms, median ${median(heard)} ms`);
      expect(heard).toHaveLength(5);

      const { data: transcript } = await api.getSessionTranscript(sessionId, { limit: 500 });
      const theirs = transcript?.segments.filter((s) => s.speaker === "digital_human").map((s) => s.text) ?? [];
      expect(theirs).toContain(BEFORE);
      expect(theirs).toContain("Message number 5 for you.");
    } finally {
      await page.screenshot({ path: `${ARTIFACTS}e2e-drive-session.png` }).catch(() => undefined);
      await page.close();
      await api.endSession(sessionId).catch(() => undefined);
      await stack.untilWorkerIdle();
    }
  });

  it("an interrupt silences the digital human at once and drops what was queued", async () => {
    const { page, sessionId } = await join(silent, "?identity=ines");
    try {
      await until(async () => ((await captions(page)).length > 0 ? true : undefined), { what: "the greeting", timeoutMs: 45_000 });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const long = (await api.say(sessionId, { text: LONG })).data;
      const queued = (await api.say(sessionId, { text: "This is never said either." })).data;
      if (!long || !queued) throw new Error("say failed");
      await until(async () => ((await captions(page)).some((c) => c.startsWith("The pool")) ? true : undefined), {
        what: "the long say under way",
        timeoutMs: 30_000,
      });
      const interruptedAt = Date.now();
      const { data: interruption } = await api.interruptSession(sessionId);
      expect(interruption?.utterance_ids.sort()).toEqual([long.id, queued.id].sort());
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const audio = (await readMediaProbe(page)).audio.filter((s) => s.at > interruptedAt);
      const lastLoud = audio.filter((s) => s.rms > SPEAKING_RMS).at(-1);
      const silentAfter = lastLoud ? lastLoud.at - interruptedAt : 0;
      console.log(`interrupt: the browser heard the digital human for ${silentAfter} ms after POST interrupt`);
      expect(silentAfter).toBeLessThan(1500);
      expect(await status(sessionId, long.id)).toBe("interrupted");
      expect(await status(sessionId, queued.id)).toBe("interrupted");
      const said = await captions(page);
      expect(said).not.toContain("This last sentence is never heard.");
      expect(said).not.toContain("This is never said either.");
    } finally {
      await page.close();
      await api.endSession(sessionId).catch(() => undefined);
      await stack.untilWorkerIdle();
    }
  });

  it("the per-turn webhook carries the participant's words, and a backend answering it with say is heard", async () => {
    const flite = FliteVoice.find();
    if (!("voice" in flite)) throw new Error(flite.missing);
    const speech = await flite.voice.synthesize(QUESTION, "slt");
    const recording = new Int16Array(speech.samples.length + speech.sampleRate * 20);
    // Asked after the greeting, once: then quiet while the backend answers.
    recording.set(speech.samples, speech.sampleRate * 6);
    const wav = `${ARTIFACTS}e2e-participant-asks-the-weather.wav`;
    writeFileSync(wav, wavFile(recording, speech.sampleRate));
    const speaking = await launchBrowser(wav);
    const receiver = await new WebhookReceiver().start();
    const { data: endpoint } = await api.createWebhookEndpoint({
      url: receiver.url,
      event_types: ["session.participant_turn", "session.utterance_started", "session.utterance_ended"],
    });
    receiver.secrets = [endpoint?.secret as string];
    // docs/backend.md's brain: each turn answered with say.
    const ANSWER = "Sunny, with a light breeze.";
    receiver.answer = (event) => {
      if (event.type === "session.participant_turn") void api.say(event.body.data.session_id, { text: ANSWER });
      return { status: 204 };
    };
    const { page, sessionId } = await join(speaking, "?identity=ines");
    try {
      await until(async () => ((await captions(page)).includes(ANSWER) ? true : undefined), {
        what: "the backend's answer",
        timeoutMs: 60_000,
      });
      const events = receiver.received.filter((e) => e.body.data?.session_id === sessionId);
      const turn = events.find((e) => e.type === "session.participant_turn");
      console.log(`per-turn webhook: the participant was heard as ${JSON.stringify(turn?.body.data.text)}`);
      // The words as the recognizer heard them (how well it hears is the conversation tier's to measure),
      // the same as the transcript keeps.
      expect(wordRecall(QUESTION, turn?.body.data.text ?? "")).toBeGreaterThanOrEqual(0.4);
      const { data: transcript } = await api.getSessionTranscript(sessionId, { limit: 500 });
      expect(transcript?.segments.filter((s) => s.speaker === "participant").map((s) => s.text)).toContain(turn?.body.data.text);
      expect(Date.parse(turn?.body.data.ended_at)).toBeGreaterThan(Date.parse(turn?.body.data.started_at));
      const greeting = events.find((e) => e.type === "session.utterance_started" && e.body.data.source === "digital_human");
      expect(greeting).toBeDefined();
      await until(
        () => (receiver.received.some((e) => e.type === "session.utterance_ended" && e.body.data.source === "say") ? true : undefined),
        {
          what: "the answer's end",
          timeoutMs: 15_000,
        },
      );
    } finally {
      await page.close();
      await api.endSession(sessionId).catch(() => undefined);
      await stack.untilWorkerIdle();
      await receiver.stop();
      await speaking.close();
    }
  });
});
