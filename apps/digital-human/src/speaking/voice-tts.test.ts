import { initializeLogger, type tts } from "@livekit/agents";
import { beforeAll, describe, expect, it } from "vitest";
import type { Speech, Voice } from "./voice.js";
import { VoiceTTS } from "./voice-tts.js";

beforeAll(() => initializeLogger({ pretty: false, level: "warn" }));

describe("VoiceTTS", () => {
  it("says a sentence in the persona's voice as 20 ms frames at the speaker's rate, the last one final", async () => {
    const asked: [string, string | undefined][] = [];
    const voice: Voice = {
      synthesize: async (text, id) => {
        asked.push([text, id]);
        return { samples: new Int16Array(16_000 / 2).fill(1000), sampleRate: 16_000 };
      },
    };
    const stream = new VoiceTTS(voice, "slt", 48_000).synthesize("Hello there.");
    const chunks: tts.SynthesizedAudio[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(asked).toEqual([["Hello there.", "slt"]]);
    expect(chunks).toHaveLength(25);
    expect(chunks.every((c) => c.frame.sampleRate === 48_000 && c.frame.samplesPerChannel === 960)).toBe(true);
    expect(chunks.map((c) => c.final)).toEqual([...Array(24).fill(false), true]);
    expect(new Set(chunks.map((c) => c.requestId)).size).toBe(1);
  });

  it("aborts the voice's request when the reply it was for is cut off", async () => {
    let aborted = false;
    const voice: Voice = {
      synthesize: (_text, _id, signal) =>
        new Promise<Speech>((_, reject) => {
          signal?.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    };
    const controller = new AbortController();
    const voiceTts = new VoiceTTS(voice, undefined, 48_000);
    const errors: unknown[] = [];
    voiceTts.on("error", (error) => errors.push(error));
    const stream = voiceTts.synthesize("A long sentence.", undefined, controller.signal);
    const reading = (async () => {
      for await (const _ of stream) {
        // nothing comes
      }
    })().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    stream.close();
    await reading;
    expect(aborted).toBe(true);
    expect(errors).toEqual([]);
  });
});
