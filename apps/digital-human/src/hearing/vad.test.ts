import { ReadableStream } from "node:stream/web";
import { initializeLogger, type VAD, type VADEvent, VADEventType } from "@livekit/agents";
import { AudioFrame } from "@livekit/rtc-node";
import { beforeAll, describe, expect, it } from "vitest";
import { resample, rms } from "../speaking/audio.js";
import { ESpeakVoice } from "../speaking/espeak-voice.js";
import { WAKE_RMS } from "./loudness-gate.js";
import { loadVad } from "./vad.js";

/** 10 ms frames at 16 kHz, in real time's order but as fast as they are read. */
async function* framesOf(samples: Int16Array): AsyncGenerator<AudioFrame> {
  for (let i = 0; i + 160 <= samples.length; i += 160) {
    yield new AudioFrame(samples.slice(i, i + 160), 16_000, 1, 160);
    if (i % 1600 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

// The plugin logs through the agents framework, which a worker sets up.
beforeAll(() => initializeLogger({ pretty: false, level: "warn" }));

describe("the session's VAD", () => {
  /** What the VAD says of some audio, fed in as the framework does (a stream of frames). */
  async function eventsOf(vad: VAD, samples: Int16Array, waitMs: number): Promise<VADEvent[]> {
    const stream = vad.stream();
    stream.updateInputStream(ReadableStream.from(framesOf(samples)) as never);
    const events: VADEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) if (event.type !== VADEventType.INFERENCE_DONE) events.push(event);
    })();
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    stream.close();
    await reading.catch(() => undefined);
    return events;
  }

  it("notices a person speaking and when they stop, with what it heard of the turn, and nothing in silence", async () => {
    const [vad, voice] = await Promise.all([loadVad(), ESpeakVoice.load()]);
    const speech = await voice.synthesize("Could you tell me more about the weather in Lisbon this week?");
    const words = resample(speech.samples, speech.sampleRate, 16_000);
    const silence = new Int16Array(16_000);
    const audio = new Int16Array(silence.length * 2 + words.length);
    audio.set(words, silence.length);

    const events = await eventsOf(vad, audio, 6000);
    expect(events.map((e) => VADEventType[e.type])).toEqual(["START_OF_SPEECH", "END_OF_SPEECH"]);
    const end = events[1] as VADEvent;
    // The turn's recording is the speech the model heard (with the plugin's padding), at the stream's rate.
    const heard = end.frames.reduce((n, f) => n + f.samplesPerChannel, 0) / 16_000;
    expect(heard).toBeGreaterThan((words.length / 16_000) * 0.8);
    expect(Math.max(...end.frames.map((f) => rms(f.data)))).toBeGreaterThan(WAKE_RMS);

    expect(await eventsOf(vad, new Int16Array(16_000 * 2), 1500)).toEqual([]);
  });
});
