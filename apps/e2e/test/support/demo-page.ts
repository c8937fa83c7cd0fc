/**
 * The demo's page as the end-to-end tiers drive it: headless Chromium with a fake camera and microphone,
 * the page's own state (window.demo: its session, the times of each step, the tracks and captions it
 * received), and joining a session through it as a user would (the page asks its backend for a session).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { FliteVoice } from "@dhs/digital-human/flite-voice";
import { wavFile } from "@dhs/digital-human/wav-file";
import { chromiumLaunchOptions } from "@dhs/testkit";
import { type Browser, chromium, type Page } from "playwright-core";
import { ARTIFACTS } from "./stack.js";

export interface DemoState {
  state: string;
  times: {
    start?: number;
    created?: number;
    connected?: number;
    videoSubscribed?: number;
    audioSubscribed?: number;
    firstVideoFrame?: number;
  };
  session: { session_id: string; rtc_url: string; participant_token: string } | null;
  remoteTracks: { kind: string; participant: string; participantKind: number }[];
  /** Both sides' captions as they arrived ("you" or "digital_human"; `at` is the page's performance.now()). */
  captions: { who: string; text: string; at: number }[];
}

export async function demoState(page: Page): Promise<DemoState> {
  return page.evaluate(() => (window as unknown as { demo: DemoState }).demo);
}

/**
 * Headless Chromium with a fake camera and microphone: the microphone plays `microphoneWav`, looped, or
 * silence. Not Chromium's own fake microphone: it beeps every second, and the VAD now and then takes a beep
 * for speech, which barges into what the digital human is saying (it cut a greeting in a CI run).
 */
export function launchBrowser(microphoneWav = silentMicrophone()): Promise<Browser> {
  return chromium.launch(
    chromiumLaunchOptions([
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${microphoneWav}`,
      "--autoplay-policy=no-user-gesture-required",
    ]),
  );
}

/**
 * A WAV file of a participant who asks `question` in Flite's voice (which PocketSphinx follows), then is
 * quiet for `quietS` seconds: looped by the fake microphone, they ask it over and over. `leadS` of quiet
 * before the question, for a test that needs the whole of the first one heard: the fake microphone plays
 * from the moment the page asks for it, a moment before the digital human listens.
 */
export async function askingMicrophone(question: string, quietS: number, name: string, leadS = 0): Promise<string> {
  const flite = FliteVoice.find();
  if (!("voice" in flite)) throw new Error(flite.missing);
  const speech = await flite.voice.synthesize(question, "slt");
  const lead = Math.round(speech.sampleRate * leadS);
  const recording = new Int16Array(lead + speech.samples.length + speech.sampleRate * quietS);
  recording.set(speech.samples, lead);
  const wav = `${ARTIFACTS}${name}.wav`;
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(wav, wavFile(recording, speech.sampleRate));
  return wav;
}

/** A WAV file of one second of silence, for a participant who says nothing. */
function silentMicrophone(): string {
  const wav = `${ARTIFACTS}e2e-silent-microphone.wav`;
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(wav, wavFile(new Int16Array(16_000), 16_000));
  return wav;
}

/** Opens the demo and joins: the page asks its backend for a session and connects to the room. */
export async function joinDemo(demoUrl: string, from: Browser, query = ""): Promise<{ page: Page; sessionId: string }> {
  const page = await from.newPage({ viewport: { width: 1000, height: 600 } });
  await page.goto(`${demoUrl}/${query}`);
  await page.click("#join");
  await page.waitForFunction(() => (window as unknown as { demo: DemoState }).demo.session !== null, null, { timeout: 30_000 });
  return { page, sessionId: (await demoState(page)).session?.session_id as string };
}
