import { initializeLogger } from "@livekit/agents";
import { AudioFrame } from "@livekit/rtc-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ESpeakVoice } from "./espeak-voice.js";
import { LoudnessGate, SileroListener, WAKE_RMS } from "./silero-listener.js";
import { resample, rms } from "./speaker.js";
import type { Speech } from "./voice.js";

/** 10 ms frames at 16 kHz, in real time's order but as fast as they are read. */
async function* framesOf(samples: Int16Array): AsyncGenerator<AudioFrame> {
  for (let i = 0; i + 160 <= samples.length; i += 160) {
    yield new AudioFrame(samples.slice(i, i + 160), 16_000, 1, 160);
    if (i % 1600 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

// The plugin logs through the agents framework, which a worker sets up.
beforeAll(() => initializeLogger({ pretty: false, level: "warn" }));

describe("SileroListener", () => {
  it("notices a person speaking and when they stop, with what it heard of the turn, and nothing in silence", async () => {
    const [listener, voice] = await Promise.all([SileroListener.load(), ESpeakVoice.load()]);
    const speech = await voice.synthesize("Could you tell me more about the weather in Lisbon this week?");
    const words = resample(speech.samples, speech.sampleRate, 16_000);
    const silence = new Int16Array(16_000);
    const audio = new Int16Array(silence.length * 2 + words.length);
    audio.set(words, silence.length);

    const events: string[] = [];
    let turn: Speech | undefined;
    let turnS = 0;
    let ended: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const stop = listener.listen(framesOf(audio), {
      speechStarted: () => events.push("started"),
      speechEnded: (durationS, speech) => {
        events.push(`ended after ${durationS > 1 ? "more" : "less"} than 1 s`);
        turn = speech;
        turnS = durationS;
        ended();
      },
    });
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    stop();
    expect(events).toEqual(["started", "ended after more than 1 s"]);
    // The turn's recording is the speech the VAD heard, as long as it says, at the stream's rate.
    expect(turn?.sampleRate).toBe(16_000);
    expect((turn?.samples.length ?? 0) / 16_000).toBeCloseTo(turnS, 2);
    expect(turnS).toBeGreaterThan((words.length / 16_000) * 0.8);
    expect(rms(turn?.samples ?? new Int16Array(0))).toBeGreaterThan(WAKE_RMS);

    const quiet: string[] = [];
    const stopQuiet = listener.listen(framesOf(new Int16Array(16_000 * 2)), {
      speechStarted: () => quiet.push("started"),
      speechEnded: () => quiet.push("ended"),
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    stopQuiet();
    expect(quiet).toEqual([]);
  });
});

describe("LoudnessGate", () => {
  const frame = (level: number) => new AudioFrame(new Int16Array(160).fill(level), 16_000, 1, 160);

  it("holds quiet frames back, then lets the last 300 ms through with the first loud one", () => {
    const gate = new LoudnessGate();
    for (let i = 0; i < 100; i++) expect(gate.pass(frame(10), false)).toEqual([]);
    const loud = frame(WAKE_RMS * 4);
    const passed = gate.pass(loud, false);
    expect(passed.at(-1)).toBe(loud);
    expect(passed.length).toBeGreaterThanOrEqual(30);
    expect(passed.length).toBeLessThanOrEqual(32);
  });

  it("stays open 1.5 s after the last loud frame, and while the model still hears speech", () => {
    const gate = new LoudnessGate();
    gate.pass(frame(WAKE_RMS * 4), false);
    for (let i = 0; i < 149; i++) expect(gate.pass(frame(0), false)).toHaveLength(1);
    expect(gate.pass(frame(0), false)).toEqual([]);
    expect(gate.pass(frame(0), true)).toHaveLength(2);
  });
});
