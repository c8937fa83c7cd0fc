import { voice as agentsVoice, createTimedString, initializeLogger, USERDATA_TIMED_TRANSCRIPT } from "@livekit/agents";
import { AudioFrame } from "@livekit/rtc-node";
import { beforeAll, describe, expect, it } from "vitest";
import { resample, rms } from "./audio.js";
import { ESpeakVoice } from "./espeak-voice.js";
import { type HeardLine, SAMPLE_RATE, Speaker } from "./speaker.js";
import type { Speech } from "./voice.js";

let voice: ESpeakVoice;
beforeAll(async () => {
  initializeLogger({ pretty: false, level: "warn" });
  voice = await ESpeakVoice.load();
});

/** A sink that takes frames as fast as they come and records what it got and how open the mouth was. */
class Recorder {
  readonly frames: AudioFrame[] = [];
  readonly mouth: number[] = [];
  constructor(private readonly speaker: () => Speaker) {}
  async captureFrame(frame: AudioFrame): Promise<void> {
    this.frames.push(frame);
    this.mouth.push(this.speaker().mouthOpen());
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Speech as the framework hands it over: 10 ms frames at the speech's own rate, the line marked on the first. */
function framesOf(speech: Speech, text: string): AudioFrame[] {
  const size = speech.sampleRate / 100;
  const frames: AudioFrame[] = [];
  for (let offset = 0; offset < speech.samples.length; offset += size) {
    const chunk = speech.samples.slice(offset, offset + size);
    frames.push(new AudioFrame(chunk, speech.sampleRate, 1, chunk.length));
  }
  (frames[0] as AudioFrame).userdata[USERDATA_TIMED_TRANSCRIPT] = [createTimedString({ text })];
  return frames;
}

function listen(speaker: Speaker) {
  const started: number[] = [];
  const finished: agentsVoice.PlaybackFinishedEvent[] = [];
  speaker.on(agentsVoice.AudioOutput.EVENT_PLAYBACK_STARTED, () => started.push(Date.now()));
  speaker.on(agentsVoice.AudioOutput.EVENT_PLAYBACK_FINISHED, (ev: agentsVoice.PlaybackFinishedEvent) => finished.push(ev));
  return { started, finished };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ESpeakVoice", () => {
  it("speaks the text with pauses between words: loud and quiet 20 ms frames, not a constant tone", async () => {
    const speech = await voice.synthesize("Hello Ada! I'm Ava. It's good to meet you.");
    const seconds = speech.samples.length / speech.sampleRate;
    expect(seconds).toBeGreaterThan(1.5);
    expect(seconds).toBeLessThan(6);
    const frame = speech.sampleRate / 50;
    const levels = Array.from({ length: Math.floor(speech.samples.length / frame) }, (_, i) =>
      rms(speech.samples.subarray(i * frame, (i + 1) * frame)),
    );
    const loud = levels.filter((level) => level > 1500).length;
    const quiet = levels.filter((level) => level < 200).length;
    expect(loud / levels.length).toBeGreaterThan(0.3);
    expect(quiet).toBeGreaterThan(3);
  });
});

describe("Speaker", () => {
  it("plays a reply at 48 kHz in 20 ms frames, tells the framework when it started and that it was heard whole, captions its line, opens the mouth only while it is heard, and sends nothing between replies", async () => {
    let speaker: Speaker | undefined;
    const sink = new Recorder(() => speaker as Speaker);
    const lines: string[] = [];
    const heard: HeardLine[] = [];
    speaker = new Speaker(sink, 5, { lineStarted: (text) => lines.push(text), lineHeard: (line) => heard.push(line) });
    const playback = listen(speaker);
    const running = speaker.run();
    await sleep(50);
    expect(sink.frames).toHaveLength(0);

    const text = "Good morning, how are you today?";
    const speech = await voice.synthesize(text);
    for (const frame of framesOf(speech, text)) await speaker.captureFrame(frame);
    speaker.flush();
    const result = await speaker.waitForPlayout();
    const endFrame = sink.frames.length;
    // A short tail of silence, so the mouth closes with the sound; then nothing.
    await sleep(100);
    const afterTail = sink.frames.length;
    await sleep(100);
    expect(sink.frames.length).toBe(afterTail);
    expect(afterTail - endFrame).toBe(15);
    speaker.stop();
    await running;

    const seconds = speech.samples.length / speech.sampleRate;
    expect(result.interrupted).toBe(false);
    expect(result.playbackPosition).toBeCloseTo(seconds, 1);
    expect(playback.started).toHaveLength(1);
    expect(lines).toEqual([text]);
    expect(heard.map((line) => [line.text, line.interrupted])).toEqual([[text, false]]);
    expect(sink.frames.every((f) => f.sampleRate === SAMPLE_RATE && f.samplesPerChannel === 960)).toBe(true);
    const expectedFrames = Math.ceil((speech.samples.length * SAMPLE_RATE) / speech.sampleRate / 960);
    expect(endFrame).toBeGreaterThanOrEqual(expectedFrames - 1);
    expect(endFrame).toBeLessThanOrEqual(expectedFrames + 2);
    const during = sink.mouth.slice(5, endFrame + 5);
    expect(Math.max(...sink.mouth.slice(0, 5))).toBe(0);
    expect(during.filter((open) => open > 0.4).length / during.length).toBeGreaterThan(0.25);
    expect(sink.mouth.at(-1)).toBeLessThan(0.05);
    expect(speaker.mouthOpen()).toBe(0);
  });

  it("cut off, drops what was not heard, finishes the reply as interrupted where it stood, and keeps the line as far as it was heard", async () => {
    /** A sink that takes a frame every 20 ms, as an AudioSource does. */
    const realTime = { captureFrame: async () => void (await sleep(20)) };
    const heard: HeardLine[] = [];
    const speaker = new Speaker(realTime, 5, { lineHeard: (line) => heard.push(line) });
    const playback = listen(speaker);
    const running = speaker.run();
    const first = "This is a long first sentence that will not be heard to its end.";
    const second = "And this one is never heard at all.";
    for (const frame of [...framesOf(await voice.synthesize(first), first), ...framesOf(await voice.synthesize(second), second)])
      await speaker.captureFrame(frame);
    speaker.flush();
    await sleep(500);
    speaker.clearBuffer();
    const result = await speaker.waitForPlayout();
    expect(result.interrupted).toBe(true);
    expect(result.playbackPosition).toBeGreaterThan(0.3);
    expect(result.playbackPosition).toBeLessThan(0.8);
    expect(speaker.speaking).toBe(false);
    expect(heard.map((line) => [line.text, line.interrupted])).toEqual([[first, true]]);
    expect((heard[0] as HeardLine).endedAt.getTime() - (heard[0] as HeardLine).startedAt.getTime()).toBeLessThan(800);

    // The next reply plays as a segment of its own.
    const next = "Yes?";
    for (const frame of framesOf(await voice.synthesize(next), next)) await speaker.captureFrame(frame);
    speaker.flush();
    expect((await speaker.waitForPlayout()).interrupted).toBe(false);
    expect(playback.finished.map((ev) => ev.interrupted)).toEqual([true, false]);
    speaker.stop();
    await running;
  });

  it("resamples without changing the duration", () => {
    const input = new Int16Array(22_050).map((_, i) => Math.round(8000 * Math.sin(i / 5)));
    const output = resample(input, 22_050, 48_000);
    expect(output.length).toBe(48_000);
    expect(Math.abs(rms(output) - rms(input))).toBeLessThan(300);
  });
});
