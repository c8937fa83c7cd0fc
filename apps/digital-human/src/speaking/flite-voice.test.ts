import { describe, expect, it } from "vitest";
import { rms } from "./audio.js";
import { FliteVoice, readWav } from "./flite-voice.js";
import { wavFile } from "./wav-file.js";

const found = FliteVoice.find();

describe("readWav", () => {
  it("reads the samples and rate of a 16-bit mono WAV, and refuses what is not one", () => {
    const samples = Int16Array.from([0, 1, -1, 32_767, -32_768]);
    expect(readWav(wavFile(samples, 16_000))).toEqual({ samples, sampleRate: 16_000 });
    expect(() => readWav(Buffer.from("not a wav at all, no"))).toThrow("not a WAV file");
    const stereo = wavFile(samples, 16_000);
    stereo.writeUInt16LE(2, 22);
    expect(() => readWav(stereo)).toThrow("not 16-bit mono PCM");
  });
});

describe("FliteVoice", () => {
  it("says what is missing where flite is not installed", () => {
    expect(FliteVoice.find("/nowhere")).toEqual({ missing: "flite is not on PATH (Debian: apt-get install flite)" });
  });

  // Debian's flite is installed by scripts/bootstrap.sh, as CI runs it; a machine without it says so above.
  it.skipIf(!("voice" in found))("speaks a sentence in each of its voices, with pauses between words", async () => {
    if (!("voice" in found)) return;
    for (const name of ["slt", "rms", "awb", "kal16"]) {
      const speech = await found.voice.synthesize("Hello Ada! I'm Ava. It's good to meet you.", name);
      expect(speech.sampleRate, name).toBe(16_000);
      const seconds = speech.samples.length / speech.sampleRate;
      expect(seconds, name).toBeGreaterThan(1.5);
      expect(seconds, name).toBeLessThan(6);
      const frame = speech.sampleRate / 50;
      const levels = Array.from({ length: Math.floor(speech.samples.length / frame) }, (_, i) =>
        rms(speech.samples.subarray(i * frame, (i + 1) * frame)),
      );
      expect(levels.filter((level) => level > 1000).length / levels.length, name).toBeGreaterThan(0.3);
      expect(levels.filter((level) => level < 200).length, name).toBeGreaterThan(3);
    }
  });

  it.skipIf(!("voice" in found))("speaks each voice as itself: two voices make two different speeches of one sentence", async () => {
    if (!("voice" in found)) return;
    const [slt, rms] = await Promise.all(["slt", "rms"].map((name) => found.voice.synthesize("Good morning.", name)));
    expect(slt?.samples.length).not.toBe(rms?.samples.length);
  });
});
