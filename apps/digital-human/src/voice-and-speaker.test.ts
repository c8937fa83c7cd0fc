import type { AudioFrame } from "@livekit/rtc-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ESpeakVoice } from "./espeak-voice.js";
import { resample, rms, SAMPLE_RATE, Speaker } from "./speaker.js";

let voice: ESpeakVoice;
beforeAll(async () => {
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
  it("sends speech at 48 kHz in 20 ms frames, says when a line starts, opens the mouth only while it is heard, and sends nothing between lines", async () => {
    let speaker: Speaker | undefined;
    const sink = new Recorder(() => speaker as Speaker);
    const started: string[] = [];
    speaker = new Speaker(sink, 5, (text) => started.push(text));
    const running = speaker.run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sink.frames).toHaveLength(0);

    const text = "Good morning, how are you today?";
    const speech = await voice.synthesize(text);
    await speaker.say(speech, text);
    const endFrame = sink.frames.length;
    // A short tail of silence, so the mouth closes with the sound; then nothing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const afterTail = sink.frames.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.frames.length).toBe(afterTail);
    expect(afterTail - endFrame).toBe(15);
    speaker.stop();
    await running;

    expect(started).toEqual([text]);
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

  it("resamples without changing the duration", () => {
    const input = new Int16Array(22_050).map((_, i) => Math.round(8000 * Math.sin(i / 5)));
    const output = resample(input, 22_050, 48_000);
    expect(output.length).toBe(48_000);
    expect(Math.abs(rms(output) - rms(input))).toBeLessThan(300);
  });
});
