import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ESpeakVoice } from "./espeak-voice.js";
import { FliteVoice } from "./flite-voice.js";
import { PocketSphinxTranscriber, RECOGNITION_RATE } from "./pocketsphinx-transcriber.js";
import { wordRecall, words } from "./transcriber.js";
import type { Speech } from "./voice.js";

// Fixed sentences a participant might say, spoken by eSpeak NG and by Flite.
const SENTENCES = [
  "I would like to book a table for two people tonight.",
  "The quick brown fox jumps over the lazy dog.",
  "Can you tell me what the weather will be like tomorrow morning?",
  "My name is Ada and I live in London.",
];
// Measured here: 0.24 over the four (eSpeak's robotic en-us voice at 140 words a minute is hard for
// PocketSphinx's model, which was trained on people). The floor sits under it, so PocketSphinx's modest
// accuracy passes while a broken pipeline (wrong rate, wrong byte order, a model not loaded), which
// hears noise and catches a word by chance at most, fails.
const RECALL_FLOOR = 0.15;
/** Flite's slt is far easier to follow: 0.90 measured here on these sentences. */
const FLITE_RECALL_FLOOR = 0.7;
const flite = FliteVoice.find();

describe("wordRecall", () => {
  it.each([
    ["every word heard", "book a table", "book a table", 1],
    ["none heard", "book a table", "look at able", 0],
    ["half heard, extra words ignored", "two people tonight now", "do people tonight", 0.5],
    ["a repeated word counts as often as it was heard", "no no no", "no", 1 / 3],
    ["case and punctuation do not matter", "Hello, Ada!", "hello ada", 1],
  ])("%s", (_name, reference, hypothesis, want) => {
    expect(wordRecall(reference, hypothesis)).toBeCloseTo(want);
  });

  it("splits words on anything but letters, digits and apostrophes", () => {
    expect(words("It's 9 o'clock -- ok?")).toEqual(["it's", "9", "o'clock", "ok"]);
  });
});

describe("PocketSphinxTranscriber.find", () => {
  it("says what is missing when the decoder is not on PATH", () => {
    const found = PocketSphinxTranscriber.find({ path: mkdtempSync(join(tmpdir(), "empty-path-")) });
    expect(found).toEqual({ missing: expect.stringContaining("pocketsphinx_continuous is not on PATH") });
  });

  it("says what is missing when the model's files are not there", () => {
    const found = PocketSphinxTranscriber.find({ modelDir: mkdtempSync(join(tmpdir(), "no-model-")) });
    // Without the decoder at all, that is said first; either way the worker learns what to install.
    expect(found).toEqual({ missing: expect.stringMatching(/is missing|is not on PATH/) });
  });
});

describe("PocketSphinxTranscriber with a decoder that misbehaves", () => {
  /** A PATH whose pocketsphinx_continuous is this script, and a model directory with the files named. */
  function fakeDecoder(script: string) {
    const bin = mkdtempSync(join(tmpdir(), "fake-decoder-"));
    writeFileSync(join(bin, "pocketsphinx_continuous"), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, "pocketsphinx_continuous"), 0o755);
    const model = mkdtempSync(join(tmpdir(), "fake-model-"));
    for (const file of ["en-us", "en-us.lm.bin", "cmudict-en-us.dict"]) writeFileSync(join(model, file), "");
    return { path: `${bin}:${process.env.PATH}`, modelDir: model };
  }
  const turn = { samples: new Int16Array(16_000).fill(1000), sampleRate: 16_000 };

  it("reads the words the decoder prints for the audio on its standard input, fillers left out", async () => {
    // Prints how many bytes of audio it was given, then a line with fillers.
    const found = PocketSphinxTranscriber.find(
      fakeDecoder('echo "got $(wc -c < /dev/stdin) bytes"; echo "<s> hello [noise] (2) there </s>"'),
    );
    if (!("transcriber" in found)) throw new Error(found.missing);
    expect(await found.transcriber.transcribe(turn)).toBe("got 32000 bytes hello there");
  });

  it("rejects a turn whose decoder fails, and decodes the next one", async () => {
    const { path, modelDir } = fakeDecoder('if [ "$(wc -c < /dev/stdin)" -gt 20000 ]; then exit 3; fi; echo ok');
    const found = PocketSphinxTranscriber.find({ path, modelDir });
    if (!("transcriber" in found)) throw new Error(found.missing);
    await expect(found.transcriber.transcribe(turn)).rejects.toThrow("exited (3)");
    expect(await found.transcriber.transcribe({ samples: new Int16Array(100), sampleRate: 16_000 })).toBe("ok");
  });

  it("gives up on a decoder that hangs, and kills it", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "hang-")), "pid");
    const found = PocketSphinxTranscriber.find({ ...fakeDecoder(`echo $$ > ${marker}; exec sleep 60`), decodeTimeoutMs: 500 });
    if (!("transcriber" in found)) throw new Error(found.missing);
    await expect(found.transcriber.transcribe(turn)).rejects.toThrow("SIGKILL");
    const pid = Number(readFileSync(marker, "utf8"));
    // Killed: gone, or a zombie until whoever inherits it reaps it (how soon depends on the machine's init).
    const dead = () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z");
    for (let waited = 0; !dead() && waited < 5_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(dead()).toBe(true);
  });
});

const lookup = PocketSphinxTranscriber.find();
const installed = "transcriber" in lookup;

// The bootstrap installs PocketSphinx; a machine without it skips only these, saying why.
describe.skipIf(!installed)("PocketSphinxTranscriber, skipped where pocketsphinx and pocketsphinx-en-us are not installed", () => {
  let voice: ESpeakVoice;
  let transcriber: PocketSphinxTranscriber;
  beforeAll(async () => {
    voice = await ESpeakVoice.load({ wordsPerMinute: 140 });
    if (!("transcriber" in lookup)) throw new Error(lookup.missing);
    transcriber = lookup.transcriber;
  });

  /** Word recall over SENTENCES in a voice, each printed, with the decoder's CPU. */
  async function recallOf(name: string, synthesize: (text: string) => Promise<Speech>): Promise<number> {
    let heard = 0;
    let said = 0;
    let cpuMs = 0;
    let speechS = 0;
    for (const sentence of SENTENCES) {
      const speech = await synthesize(sentence);
      const before = childCpuMs();
      const text = await transcriber.transcribe(speech);
      cpuMs += childCpuMs() - before;
      speechS += speech.samples.length / speech.sampleRate;
      const recall = wordRecall(sentence, text);
      console.log(`transcriber, ${name}: recall ${recall.toFixed(2)} | said: ${sentence} | heard: ${text}`);
      heard += recall * words(sentence).length;
      said += words(sentence).length;
    }
    console.log(
      `transcriber, ${name}: word recall ${(heard / said).toFixed(2)} over ${said} words; ${Math.round(cpuMs)} ms of CPU for ${speechS.toFixed(1)} s of speech`,
    );
    return heard / said;
  }

  it(`recognizes at least ${RECALL_FLOOR * 100}% of the words of sentences spoken by eSpeak NG, and prints the measured recall`, async () => {
    expect(await recallOf("eSpeak NG", (text) => voice.synthesize(text))).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });

  // The voice the end-to-end tier's participant speaks in, so that what it checks was understood means something.
  it.skipIf(!("voice" in flite))(
    `recognizes at least ${FLITE_RECALL_FLOOR * 100}% of the words of the same sentences spoken by Flite's slt (skipped without flite)`,
    async () => {
      if (!("voice" in flite)) throw new Error(flite.missing);
      const slt = flite.voice;
      expect(await recallOf("Flite slt", (text) => slt.synthesize(text, "slt"))).toBeGreaterThanOrEqual(FLITE_RECALL_FLOOR);
    },
  );

  it("hears no words in silence", async () => {
    expect(await transcriber.transcribe({ samples: new Int16Array(RECOGNITION_RATE), sampleRate: RECOGNITION_RATE })).toBe("");
    expect(await transcriber.transcribe({ samples: new Int16Array(0), sampleRate: RECOGNITION_RATE })).toBe("");
  });

  it("decodes turns given at once one after another, each to the words it gives alone", async () => {
    const [a, b] = await Promise.all(SENTENCES.slice(0, 2).map((sentence) => voice.synthesize(sentence)));
    if (!a || !b) throw new Error("no speech");
    const alone = [await transcriber.transcribe(a), await transcriber.transcribe(b)];
    expect(alone[0]).not.toBe(alone[1]);
    expect(await Promise.all([transcriber.transcribe(a), transcriber.transcribe(b)])).toEqual(alone);
  });
});

/** CPU time of this process's finished children (the decoder runs), in ms. */
function childCpuMs(): number {
  const out = execFileSync("sh", ["-c", "cat /proc/$PPID/stat"], { encoding: "utf8" });
  const fields = out.slice(out.lastIndexOf(")") + 2).split(" ");
  // cutime and cstime, fields 16 and 17 of stat (here 14 and 15 after the command's name).
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}
