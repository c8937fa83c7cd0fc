/**
 * The product path with real parts: a customer backend (the demo) creates a session through the API, a
 * browser (headless Chromium with fake camera and microphone) joins the LiveKit room, the digital human
 * (the agent worker) is dispatched and joins, and the session's state follows LiveKit's webhooks and the
 * timers. Everything is asserted through the public API, and through what the browser sees.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createClient, type DhsClient, verifyWebhook, type WebhookPayload } from "@dhs/client";
import { FliteVoice } from "@dhs/digital-human/flite-voice";
import { ACKNOWLEDGEMENTS } from "@dhs/digital-human/lines";
import { LOG, STEP } from "@dhs/digital-human/log-lines";
import { wordRecall } from "@dhs/digital-human/transcriber";
import { wavFile } from "@dhs/digital-human/wav-file";
import { scanForSecrets, until, WebhookReceiver } from "@dhs/testkit";
import { AgentDispatchClient, RoomServiceClient } from "livekit-server-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { type DemoState, demoState, joinDemo, launchBrowser } from "./support/demo-page.js";
import { mean, readMediaProbe, SPEAKING_RMS, speakingAt, startMediaProbe } from "./support/media-probe.js";
import {
  ARTIFACTS,
  AVA,
  DEV_API_KEY,
  DEV_TEST_API_KEY,
  FACE,
  GHOST,
  LATE,
  LIVEKIT_KEY,
  LIVEKIT_SECRET,
  type Stack,
  startStack,
  TIMEOUTS,
} from "./support/stack.js";

/** How a log line of the worker's names its message, for a match on the raw line. */
const logged = (message: string) => `"msg":${JSON.stringify(message)}`;

let stack: Stack;
let browser: Browser;
let api: DhsClient;
let rooms: RoomServiceClient;

beforeAll(async () => {
  stack = await startStack(inject("livekitServer"));
  api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
  rooms = new RoomServiceClient(stack.livekitApiUrl, LIVEKIT_KEY, LIVEKIT_SECRET);
  browser = await launchBrowser();
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Every page a test opened, with its session: closed and ended after the test, whether it passed or not. */
const opened: { page: Page; sessionId: string }[] = [];

// A test that fails half-way must not leave its session running: a digital human still talking (and its
// page still decoding) would take CPU from the next test, and the worker could refuse the next job. Its
// job leaves a moment after the session ends, and the next test starts once it has: on a loaded machine the
// worker refuses a job while another is still running, and that session would fail on digital_human_timeout.
afterEach(async () => {
  for (const { page, sessionId } of opened.splice(0)) {
    await page.close().catch(() => undefined);
    await api.endSession(sessionId).catch(() => undefined);
  }
  await stack.untilWorkerIdle();
});

/**
 * Opens the demo and joins Ava unless the query names another; the page is closed and its session ended
 * after the test. (The demo's own default is its hotel concierge, on a service that keeps knowledge.)
 */
async function joinThroughDemo(query = "", from: Browser = browser): Promise<{ page: Page; sessionId: string }> {
  const named = query.includes("digital_human_id=") ? query : `${query ? `${query}&` : "?"}digital_human_id=${AVA.id}`;
  const joined = await joinDemo(stack.demoUrl, from, named);
  opened.push(joined);
  return joined;
}

async function listItem(id: string) {
  const { data } = await api.listSessions({ limit: 100 });
  return data?.data.find((item) => item.id === id);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Each step of one session's start, in ms from the click on Join (negative: before it). */
type Timeline = Record<string, number | undefined>;

/**
 * One session's start, step by step, from the page (its performance.now() times), the service (the
 * session's timestamps) and the digital human worker's "timeline" log lines, all on this machine's clock.
 */
function timelineOf(
  state: DemoState,
  timeOrigin: number,
  item: { created_at: string; started_at: string | null; digital_human_joined_at: string | null },
  sessionId: string,
  firstWordAt: number,
): Timeline {
  const join = timeOrigin + (state.times.start as number);
  const fromPage = (t: number | undefined) => (t === undefined ? undefined : Math.round(timeOrigin + t - join));
  const fromEpoch = (t: number | null) => (t === null ? undefined : Math.round(t - join));
  const timeline: Timeline = {
    "create answered": fromPage(state.times.created),
    "session created (service)": fromEpoch(Date.parse(item.created_at)),
    "browser connected": fromPage(state.times.connected),
    "session active (service)": fromEpoch(item.started_at ? Date.parse(item.started_at) : null),
    "digital human joined (service)": fromEpoch(item.digital_human_joined_at ? Date.parse(item.digital_human_joined_at) : null),
    "video subscribed": fromPage(state.times.videoSubscribed),
    "audio subscribed": fromPage(state.times.audioSubscribed),
    "first video frame": fromPage(state.times.firstVideoFrame),
    "first word heard": fromEpoch(firstWordAt),
  };
  for (const line of readFileSync(`${stack.logs}digital-human.log`, "utf8").split("\n")) {
    if (!line.includes(sessionId) || !(line.includes(logged(LOG.timeline)) || line.includes(logged(LOG.saying)))) continue;
    const entry = JSON.parse(line) as { time: number; msg: string; step?: string };
    const step = entry.msg === LOG.saying ? STEP.firstAudioSent : `${entry.step} (worker)`;
    timeline[step] ??= fromEpoch(entry.time);
  }
  return timeline;
}

describe("a browser joining a session through the demo", () => {
  it("makes the session active, the digital human joins, and the browser receives its audio and video", async () => {
    const runs: Timeline[] = [];
    for (let run = 0; run < 5; run++) {
      const { page, sessionId } = await joinThroughDemo();
      // From the moment the digital human's voice is subscribed, so its first word is heard when it comes.
      await startMediaProbe(page, FACE.mouth, FACE.size);
      // Talking: a video frame was shown; and both of the digital human's tracks are subscribed.
      await page.waitForFunction(
        () => {
          const demo = (window as unknown as { demo: DemoState }).demo;
          return demo.state === "talking" && demo.remoteTracks.length >= 2;
        },
        null,
        { timeout: 30_000 },
      );
      const firstWordAt = await until(async () => (await readMediaProbe(page)).audio.find((s) => s.rms > SPEAKING_RMS)?.at, {
        what: "the digital human's first word",
        timeoutMs: 15_000,
      });
      const state = await demoState(page);
      expect(state.remoteTracks.map((t) => t.kind).sort()).toEqual(["audio", "video"]);
      // Both tracks come from a participant of kind AGENT (4 in LiveKit's ParticipantInfo.Kind).
      expect(new Set(state.remoteTracks.map((t) => t.participantKind))).toEqual(new Set([4]));

      const item = await until(
        async () => {
          const found = await listItem(sessionId);
          return found?.status === "active" && found.digital_human_joined_at ? found : undefined;
        },
        { what: "active with the digital human joined", timeoutMs: 30_000 },
      );
      runs.push(timelineOf(state, await page.evaluate(() => performance.timeOrigin), item, sessionId, firstWordAt));
      const { data: session } = await api.getSession(sessionId);
      expect(session).toMatchObject({ status: "active", participant_token: expect.any(String) });
      if (run === 0) await page.screenshot({ path: `${ARTIFACTS}e2e-joined.png` });

      await api.endSession(sessionId);
      await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.state === "disconnected", null, { timeout: 15_000 });
      await page.close();
    }
    const steps = [...new Set(runs.flatMap((r) => Object.keys(r)))];
    const medians = Object.fromEntries(
      steps.map((step) => [step, median(runs.map((r) => r[step]).filter((v): v is number => v !== undefined))]),
    );
    const ordered = Object.entries(medians).sort((a, b) => a[1] - b[1]);
    process.stdout.write(
      `\nend-to-end timeline, ms from click Join, median of ${runs.length} runs:\n` +
        ordered.map(([step, ms]) => `  ${String(ms).padStart(6)}  ${step}`).join("\n") +
        `\nend-to-end timings, median of ${runs.length} runs: ${JSON.stringify({
          "create -> active (ms)": median(runs.map((r) => (r["session active (service)"] ?? 0) - (r["create answered"] ?? 0))),
          "create -> digital human joined (ms)": median(
            runs.map((r) => (r["digital human joined (service)"] ?? 0) - (r["session created (service)"] ?? 0)),
          ),
          "click Join -> first video frame in the browser (ms)": medians["first video frame"],
          "click Join -> first word heard in the browser (ms)": medians["first word heard"],
        })}\nruns: ${JSON.stringify(runs)}\n`,
    );
  });

  it("ends with endSession: completed, the room deleted, the browser disconnected", async () => {
    const { page, sessionId } = await joinThroughDemo();
    await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.state === "talking", null, { timeout: 30_000 });
    const { data: ended, response } = await api.endSession(sessionId);
    expect(response.status).toBe(200);
    expect(ended).toMatchObject({ status: "completed", participant_token: null, ended_at: expect.any(String) });
    await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.state === "disconnected", null, { timeout: 15_000 });
    const listed = await rooms.listRooms();
    expect(listed.map((room) => room.name)).not.toContain(`dhs-${sessionId}`);
    expect((await listItem(sessionId))?.end_reason).toBe("user_ended");

    // The old token cannot bring the ended room back: room auto-create is off, and it was deleted.
    const { participant_token: oldToken, rtc_url: rtcUrl } = (await demoState(page)).session as {
      participant_token: string;
      rtc_url: string;
    };
    const rejoin = await page.evaluate(
      async ([url, token]) => {
        const { Room } = (
          window as unknown as {
            LivekitClient: { Room: new () => { connect(u: string, t: string): Promise<void>; disconnect(): Promise<void> } };
          }
        ).LivekitClient;
        const room = new Room();
        try {
          await room.connect(url as string, token as string);
          await room.disconnect();
          return "connected";
        } catch (error) {
          return `refused: ${(error as Error).message}`;
        }
      },
      [rtcUrl, oldToken],
    );
    expect(rejoin).toMatch(/^refused/);
    expect((await rooms.listRooms()).map((room) => room.name)).not.toContain(`dhs-${sessionId}`);
    const { data: after } = await api.getSession(sessionId);
    expect(after?.status).toBe("completed");
    await page.close();
  });
});

describe("a test session (test key)", () => {
  it("is real: Chromium joins its room, LiveKit's events make it active, a live key cannot see it, and the helpers end it", async () => {
    const test = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_TEST_API_KEY, maxRetries: 0 });
    const { data: session } = await test.createSession({ participant_identity: "e2e-test-mode" });
    if (!session?.participant_token) throw new Error("no test session");
    const page = await browser.newPage();
    await page.goto(`${stack.demoUrl}/`);
    // The page's own livekit-client (the demo serves it), joined with the test session's token.
    await page.evaluate(
      async ([url, token]) => {
        const { Room } = (window as unknown as { LivekitClient: { Room: new () => { connect(u: string, t: string): Promise<void> } } })
          .LivekitClient;
        const room = new Room();
        (window as unknown as { testRoom: unknown }).testRoom = room;
        await room.connect(url as string, token as string);
      },
      [session.rtc_url, session.participant_token],
    );
    // LiveKit's participant_joined webhook, not a helper, makes it active.
    await until(async () => ((await test.getSession(session.id)).data?.status === "active" ? true : undefined), { timeoutMs: 20_000 });
    expect((await api.getSession(session.id)).response.status).toBe(404);
    const { data: ended } = await test.sendTestSessionEvent(session.id, { type: "room_finished" });
    expect(ended).toMatchObject({ status: "completed", participant_token: null });
    // The helper closed the room for real: the browser is disconnected.
    await page.waitForFunction(() => (window as unknown as { testRoom: { state: string } }).testRoom.state === "disconnected", null, {
      timeout: 15_000,
    });
    expect((await rooms.listRooms()).map((room) => room.name)).not.toContain(session.room_name);
    await page.close();
  });
});

describe("the digital human in the browser", () => {
  it("greets the participant by name in speech with pauses, and its mouth moves more while it speaks than while silent", async () => {
    const { page, sessionId } = await joinThroughDemo("?identity=grace");
    // From the moment the voice is subscribed (the greeting starts then), so its first word is measured.
    await startMediaProbe(page, FACE.mouth, FACE.size);
    await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.state === "talking", null, { timeout: 30_000 });
    // The greeting lasts about five seconds; then it listens, silent.
    let shotWhileSpeaking = false;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const probe = await readMediaProbe(page);
      const last = probe.audio.at(-1);
      if (!shotWhileSpeaking && last && last.rms > SPEAKING_RMS * 3) {
        await page.screenshot({ path: `${ARTIFACTS}e2e-digital-human-speaking.png` });
        shotWhileSpeaking = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await page.screenshot({ path: `${ARTIFACTS}e2e-digital-human-silent.png` });
    const { audio, video } = await readMediaProbe(page);

    // Speech, not a tone: loud stretches broken by quiet ones (pauses between phrases), then silence.
    const loud = audio.map((s) => s.rms > SPEAKING_RMS);
    const onsets = loud.filter((isLoud, i) => isLoud && i > 0 && !loud[i - 1]).length;
    expect(loud.filter(Boolean).length, "audio samples above the speaking level").toBeGreaterThan(20);
    expect(onsets, "separate loud stretches").toBeGreaterThanOrEqual(3);
    expect(loud.slice(-20).some(Boolean), "silence after the greeting").toBe(false);

    // The video moves, and the mouth far more while speaking.
    const speaking = video.filter((v) => speakingAt(audio, v.at) === true).map((v) => v.mouth);
    const silent = video.filter((v) => speakingAt(audio, v.at) === false).map((v) => v.mouth);
    console.log(
      `mouth region change per frame: ${mean(speaking).toFixed(2)} while speaking (${speaking.length} frames), ` +
        `${mean(silent).toFixed(2)} while silent (${silent.length}); whole frame ${mean(video.map((v) => v.frame)).toFixed(2)}`,
    );
    expect(speaking.length).toBeGreaterThan(10);
    expect(silent.length).toBeGreaterThan(10);
    expect(mean(video.map((v) => v.frame))).toBeGreaterThan(0);
    expect(mean(speaking)).toBeGreaterThan(3 * mean(silent));

    // The worker logged the greeting with the participant's identity as it started to send it, and what
    // the browser heard first was that greeting: not before the worker sent it, and while it was still
    // being sent (before its last sentence). How long the way takes is the timeline's to print, not this
    // test's to bound: a loaded machine delays it.
    const saying = readFileSync(`${stack.logs}digital-human.log`, "utf8")
      .split("\n")
      .filter((line) => line.includes(logged(LOG.saying)) && line.includes(sessionId))
      .map((line) => JSON.parse(line) as { time: number; text: string });
    // Said sentence by sentence: the greeting's first two.
    expect(
      saying
        .slice(0, 2)
        .map((line) => line.text)
        .join(" "),
    ).toMatch(/^Hello grace! I'm Ava\./);
    const greetingSentences = saying.slice(0, 4);
    expect(greetingSentences.map((line) => line.text).join(" ")).toMatch(/^Hello grace! .* I will listen\.$/);
    const firstHeard = audio.find((s) => s.rms > SPEAKING_RMS)?.at as number;
    expect(firstHeard - (greetingSentences[0]?.time as number)).toBeGreaterThan(-200);
    expect(firstHeard).toBeLessThan(greetingSentences[3]?.time as number);
    expect(shotWhileSpeaking).toBe(true);
    await api.endSession(sessionId);
    await page.close();
  });
});

describe("a digital human of the account's own", () => {
  it("greets with its persona's greeting, in its voice, heard in the browser", async () => {
    const { data: maya, error } = await api.createDigitalHuman({
      name: "Maya",
      greeting: "Welcome to the Harbour Hotel, {participant_identity}! I am {name}.",
      instructions: "You are Maya, the concierge of the Harbour Hotel.",
      voice: "rms",
    });
    if (!maya) throw new Error(`createDigitalHuman: ${JSON.stringify(error)}`);
    try {
      const { page, sessionId } = await joinThroughDemo(`?identity=ines_b&digital_human_id=${maya.id}`);
      await startMediaProbe(page, FACE.mouth, FACE.size);
      const said = await until(
        async () => {
          const lines = readFileSync(`${stack.logs}digital-human.log`, "utf8")
            .split("\n")
            .filter((line) => line.includes(sessionId) && line.includes(logged(LOG.saying)))
            .map((line) => (JSON.parse(line) as { text: string }).text);
          return lines.length >= 2 ? lines : undefined;
        },
        { what: "the worker saying the persona's greeting", timeoutMs: 30_000 },
      );
      // Sentence by sentence, its placeholders filled: the identity as it is spoken, its own name.
      expect(said.slice(0, 2)).toEqual(["Welcome to the Harbour Hotel, ines b!", "I am Maya."]);
      const persona = readFileSync(`${stack.logs}digital-human.log`, "utf8")
        .split("\n")
        .find((line) => line.includes(sessionId) && line.includes(logged(LOG.personaReceived)));
      expect(JSON.parse(persona as string)).toMatchObject({ voice: "rms", instructions_chars: 49 });
      // Heard: the browser received its speech.
      await until(async () => ((await readMediaProbe(page)).audio.some((s) => s.rms > SPEAKING_RMS) ? true : undefined), {
        what: "the greeting heard in the browser",
        timeoutMs: 15_000,
      });
      const item = await listItem(sessionId);
      expect(item?.digital_human_id).toBe(maya.id);
    } finally {
      await api.deleteDigitalHuman(maya.id);
    }
  });
});

describe("live captions, and a digital human without an LLM", () => {
  // Said in Flite's voice (which PocketSphinx follows) into Chromium's fake microphone after 6 s of silence
  // (the greeting's length), then 4 s of silence, over and over. Said over the greeting, its first words
  // reached the worker faint (the browser's echo canceller, double talk) until the greeting stopped, and
  // PocketSphinx heard only the last two in a loaded CI run.
  const SAID = "Can you tell me what the weather will be like tomorrow morning?";

  it("show both sides under the video (the greeting verbatim, what the participant said, the acknowledgement of it) and keep them in the session's transcript", async () => {
    const flite = FliteVoice.find();
    if (!("voice" in flite)) throw new Error(flite.missing);
    const speech = await flite.voice.synthesize(SAID, "slt");
    const recording = new Int16Array(speech.sampleRate * 6 + speech.samples.length + speech.sampleRate * 4);
    recording.set(speech.samples, speech.sampleRate * 6);
    const wav = `${ARTIFACTS}e2e-participant-says.wav`;
    writeFileSync(wav, wavFile(recording, speech.sampleRate));
    const speaking = await launchBrowser(wav);
    try {
      const { page, sessionId } = await joinThroughDemo("?identity=ada", speaking);
      type Caption = { who: string; text: string };
      const captionsOf = () => page.evaluate(() => (window as unknown as { demo: { captions: Caption[] } }).demo.captions);
      const captions = await until(
        async () => {
          const all = await captionsOf();
          const heard = all.filter((c) => c.who === "you");
          const acknowledged = all.some((c) => c.who === "digital_human" && ACKNOWLEDGEMENTS.includes(c.text));
          return acknowledged && heard.some((c) => wordRecall(SAID, c.text) > 0) ? all : undefined;
        },
        { what: "captions of the greeting, of words the participant said and of the acknowledgement", timeoutMs: 60_000 },
      );
      await page.screenshot({ path: `${ARTIFACTS}e2e-captions.png`, fullPage: true });
      const heard = captions.filter((c) => c.who === "you").map((c) => c.text);
      const best = Math.max(...heard.map((text) => wordRecall(SAID, text)));
      console.log(`captions: said "${SAID}" (Flite's slt); heard ${JSON.stringify(heard)}; best word recall ${best.toFixed(2)}`);
      // Without an LLM it says only its own lines: the greeting's sentences and acknowledgements.
      const greetingLines = ["Hello ada!", "I'm Ava.", "It's good to meet you.", "Say something, and I will listen."];
      const own = captions.filter((c) => c.who === "digital_human").map((c) => c.text);
      expect(own.every((text) => greetingLines.includes(text) || ACKNOWLEDGEMENTS.includes(text))).toBe(true);
      expect(best).toBeGreaterThanOrEqual(0.5);
      // The greeting's first sentence, verbatim, as the digital human's; and the page shows what it got.
      expect(captions.find((c) => c.who === "digital_human")?.text).toBe("Hello ada!");
      const shown = await page.locator("#captions p").allTextContents();
      expect(shown.some((line) => line.startsWith("Ava") && line.includes("Hello ada!"))).toBe(true);
      expect(shown.some((line) => line.startsWith("You"))).toBe(true);

      // The same words in the service's transcript, posted by the digital human as they became final.
      await until(
        async () => {
          const { data } = await api.getSessionTranscript(sessionId);
          return data?.status === "in_progress" && data.segments.some((s) => s.speaker === "participant") ? data : undefined;
        },
        { what: "the participant's words in the stored transcript while the session runs", timeoutMs: 15_000 },
      );
      await api.endSession(sessionId);
      // The digital human sees its room deleted and says `final`: complete without waiting for the grace.
      const complete = await until(
        async () => {
          const { data } = await api.getSessionTranscript(sessionId, { limit: 500 });
          return data?.status === "complete" ? data : undefined;
        },
        { what: "the transcript complete", timeoutMs: 20_000 },
      );
      const stored = complete.segments.filter((s) => s.speaker === "participant").map((s) => s.text);
      console.log(`transcript: ${complete.segment_count} segments; the participant's: ${JSON.stringify(stored)}`);
      expect(complete.segments.find((s) => s.speaker === "digital_human")?.text).toBe("Hello ada!");
      expect(Math.max(...stored.map((text) => wordRecall(SAID, text)))).toBeGreaterThan(0);
    } finally {
      await speaking.close();
    }
  });
});

describe("a customer's webhook receiver", () => {
  it("gets the events of a real session, each verified with @dhs/client's verifyWebhook", async () => {
    const received: { id: string; event: WebhookPayload }[] = [];
    let secret = "";
    // Verified as a customer's backend does, with the client's own helper: a forged or stale one is refused.
    const receiver = new WebhookReceiver({
      answer: (delivery) => {
        try {
          received.push({ id: delivery.id, event: verifyWebhook(delivery.raw, delivery.headers, secret) });
          return { status: 204 };
        } catch {
          return { status: 400 };
        }
      },
    });
    await receiver.start();
    try {
      const { data: endpoint } = await api.createWebhookEndpoint({ url: receiver.url });
      secret = endpoint?.secret as string;
      const { page, sessionId } = await joinThroughDemo();
      await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.state === "talking", null, { timeout: 30_000 });
      // Ended once the greeting was heard: a session ended before its digital human said a word has an
      // empty transcript (CI ended one that early).
      await until(async () => (await api.getSessionTranscript(sessionId)).data?.segments.some((s) => s.speaker === "digital_human"), {
        what: "the greeting in the transcript",
        timeoutMs: 20_000,
      });
      await api.endSession(sessionId);
      const types = ["session.created", "session.digital_human_joined", "session.active", "session.ended"];
      const mine = await until(
        () => {
          const events = received.filter((r) => (r.event.data as { id?: string }).id === sessionId);
          return types.every((type) => events.some((r) => r.event.type === type)) ? events : undefined;
        },
        { timeoutMs: 15_000, what: "the session's four events" },
      );
      expect(mine.map((r) => r.event.type).sort()).toEqual([...types].sort());
      const ended = mine.find((r) => r.event.type === "session.ended")?.event.data as Record<string, unknown>;
      expect(ended).toMatchObject({ id: sessionId, status: "completed", end_reason: "user_ended" });
      expect(ended.duration_seconds).toEqual(expect.any(Number));
      // Then the transcript, once the digital human said its last segment: the count, never the text.
      const ready = await until(
        () =>
          received.find(
            (r) => r.event.type === "session.transcript_ready" && (r.event.data as { session_id?: string }).session_id === sessionId,
          ),
        { timeoutMs: 30_000, what: "session.transcript_ready" },
      );
      const { data: transcript } = await api.getSessionTranscript(sessionId, { limit: 500 });
      expect(transcript?.status).toBe("complete");
      expect(ready.event.data).toEqual({ session_id: sessionId, segment_count: transcript?.segment_count });
      expect(transcript?.segments.some((s) => s.speaker === "digital_human")).toBe(true);
      const { data: log } = await api.listWebhookDeliveries(endpoint?.id as string);
      expect(log?.data.filter((d) => d.outcome === "succeeded").length).toBeGreaterThanOrEqual(5);
      await api.deleteWebhookEndpoint(endpoint?.id as string);
      await page.close();
    } finally {
      await receiver.stop();
    }
  });
});

describe("timers with real LiveKit", () => {
  it("cancel a session nobody joins (join_timeout)", async () => {
    const { data: session } = await api.createSession({ participant_identity: "nobody" });
    const item = await until(
      async () => {
        const found = await listItem(session?.id as string);
        return found?.status === "cancelled" ? found : undefined;
      },
      { what: "cancelled", timeoutMs: (TIMEOUTS.joinS + 10) * 1000 },
    );
    expect(item.end_reason).toBe("join_timeout");
    // The end is stored first and the room deleted as its effect, so a list may show the end a moment
    // before LiveKit has closed the room: the room must be gone within a few seconds, not at once.
    await until(async () => !(await rooms.listRooms()).some((room) => room.name === session?.room_name), {
      what: "the room deleted",
      timeoutMs: 5000,
    });
  });

  it("fail a session whose digital human never joins (digital_human_timeout), disconnecting the browser", async () => {
    const { page, sessionId } = await joinThroughDemo(`?digital_human_id=${GHOST.id}`);
    await until(async () => (await listItem(sessionId))?.status === "active", { what: "active", timeoutMs: 30_000 });
    const item = await until(
      async () => {
        const found = await listItem(sessionId);
        return found?.status === "failed" ? found : undefined;
      },
      { what: "failed", timeoutMs: (TIMEOUTS.digitalHumanS + 10) * 1000 },
    );
    expect(item).toMatchObject({ end_reason: "digital_human_timeout", digital_human_joined_at: null });
    await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.state === "disconnected", null, { timeout: 15_000 });
    await page.close();
  });
});

describe("a digital human whose worker registers after the session was created", () => {
  it("is dispatched again by the service and joins (self-hosted LiveKit dispatches an agent once)", async () => {
    const { data: session } = await api.createSession({ participant_identity: "waits-for-late", digital_human_id: LATE.id });
    const created = Date.now();
    await stack.startLateWorker();
    const registered = Date.now() - created;
    const item = await until(
      async () => {
        const found = await listItem(session?.id as string);
        return found?.digital_human_joined_at ? found : undefined;
      },
      { what: "the late digital human joined", timeoutMs: TIMEOUTS.joinS * 1000 },
    );
    const joined = Date.parse(item.digital_human_joined_at as string) - created;
    // The dispatch made with the room found no worker; the one that brought the agent is the service's.
    const dispatches = await new AgentDispatchClient(stack.livekitApiUrl, LIVEKIT_KEY, LIVEKIT_SECRET).listDispatch(
      session?.room_name as string,
    );
    console.log(
      `late worker: registered ${registered} ms after the create; digital human joined ${joined} ms after it; ${dispatches.length} dispatches`,
    );
    expect(dispatches.length).toBeGreaterThanOrEqual(2);
    expect(item.status).toBe("created");
  });
});

// Last in the file, so it reads what the whole run above wrote.
describe("the logs of every process in the stack", () => {
  it("hold no API key and no token", () => {
    // LiveKit's dev secret ("secret") is a common word; what it signs (JWTs) is what the scan looks for.
    const scan = scanForSecrets(stack.logs, [DEV_API_KEY]);
    console.log(`e2e log scan: ${scan.lines} lines in ${scan.files} files, ${scan.findings.length} secrets`);
    expect(scan.files).toBeGreaterThanOrEqual(5);
    expect(scan.findings.slice(0, 20)).toEqual([]);
  });
});
