import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ESpeakVoice } from "../speaking/espeak-voice.js";
import { FliteVoice } from "../speaking/flite-voice.js";
import type { Speech } from "../speaking/voice.js";
import { PocketSphinxTranscriber, RECOGNITION_RATE } from "./pocketsphinx-transcriber.js";
import { transcribe, wordRecall, words } from "./transcriber.js";

// Fixed sentences a participant might say, spoken by eSpeak NG and by Flite.
const SENTENCES = [
  "I would like to book a table for two people tonight.",
  "The quick brown fox jumps over the lazy dog.",
  "Can you tell me what the weather will be like tomorrow morning?",
  "My name is Ada and I live in London.",
];
// Measured here: 0.41 over the four (eSpeak's robotic en-us voice at 140 words a minute is hard for
// PocketSphinx's model, which was trained on people). The floor sits under it, so PocketSphinx's modest
// accuracy passes while a broken pipeline (wrong rate, wrong byte order, a model not loaded), which
// hears noise and catches a word by chance at most, fails.
const RECALL_FLOOR = 0.15;
/** Flite's slt is far easier to follow: 0.85 measured here on these sentences. */
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
  it("says what is missing when Debian's Python is not there", () => {
    const found = PocketSphinxTranscriber.find({ python: join(mkdtempSync(join(tmpdir(), "no-python-")), "python3") });
    expect(found).toEqual({ missing: expect.stringContaining("python3 is missing (Debian: apt-get install python3-pocketsphinx") });
  });

  it("says what is missing when the model's files are not there", () => {
    const found = PocketSphinxTranscriber.find({ modelDir: mkdtempSync(join(tmpdir(), "no-model-")) });
    expect(found).toEqual({
      missing: expect.stringMatching(/en-us is missing \(Debian: apt-get install python3-pocketsphinx pocketsphinx-en-us\)$/),
    });
  });

  it("says what is missing when Python has no PocketSphinx", () => {
    const { python, modelDir } = fakeDecoder("process.exit(0)", { imports: false });
    expect(PocketSphinxTranscriber.find({ python, modelDir })).toEqual({
      missing: expect.stringContaining("cannot import pocketsphinx"),
    });
  });
});

/**
 * A "python" that is a Node.js script: it answers find's import check (or not), and otherwise runs
 * `body` with `messages`, an async iterator of the decoder protocol's messages on its standard input.
 */
function fakeDecoder(body: string, { imports = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "fake-decoder-"));
  const python = join(dir, "python3");
  writeFileSync(
    python,
    `#!${process.execPath}
if (process.argv[2] === "-c") process.exit(${imports ? 0 : 1});
async function* read() {
  let buffer = Buffer.alloc(0);
  for await (const chunk of process.stdin) {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 5 && buffer.length >= 5 + buffer.readUInt32LE(1)) {
      const length = buffer.readUInt32LE(1);
      yield { kind: buffer.toString("ascii", 0, 1), length };
      buffer = buffer.subarray(5 + length);
    }
  }
}
const messages = read();
(async () => { ${body} })();
`,
  );
  chmodSync(python, 0o755);
  const modelDir = mkdtempSync(join(tmpdir(), "fake-model-"));
  for (const file of ["en-us", "en-us.lm.bin", "cmudict-en-us.dict"]) writeFileSync(join(modelDir, file), "");
  return { python, modelDir, dir };
}

/** Prints, for each turn that ends, how many bytes of audio it got, then a line with fillers. */
const COUNTING = `let bytes = 0;
  for await (const m of messages) {
    if (m.kind === "S") bytes = 0;
    if (m.kind === "A") bytes += m.length;
    if (m.kind === "E") console.log("got " + bytes + " bytes <s> hello [noise] (2) there </s>");
  }`;

describe("PocketSphinxTranscriber with a decoder of its own", () => {
  const second = { samples: new Int16Array(16_000).fill(1000), sampleRate: 16_000 };

  function found(python: string, modelDir: string, decodeTimeoutMs?: number): PocketSphinxTranscriber {
    const lookup = PocketSphinxTranscriber.find({ python, modelDir, ...(decodeTimeoutMs ? { decodeTimeoutMs } : {}) });
    if (!("transcriber" in lookup)) throw new Error(lookup.missing);
    return lookup.transcriber;
  }

  it("sends a turn's audio as it is heard, at 16 kHz, and reads its words once it ends, fillers left out", async () => {
    const { python, modelDir } = fakeDecoder(COUNTING);
    const transcriber = found(python, modelDir);
    const turn = transcriber.startTurn();
    turn.hear(second);
    turn.hear({ samples: new Int16Array(48_000), sampleRate: 48_000 });
    expect(await turn.end()).toBe("got 64000 bytes hello there");
    transcriber.close();
  });

  it("answers turns in the order they ended, with one decoder for all of them", async () => {
    const { python, modelDir, dir } = fakeDecoder(`require("node:fs").appendFileSync(__dirname + "/starts", "x");
${COUNTING}`);
    const transcriber = found(python, modelDir);
    const words = await Promise.all(
      [1, 2, 3].map((n) => transcribe(transcriber, { samples: new Int16Array(n * 100), sampleRate: 16_000 })),
    );
    expect(words).toEqual(["got 200 bytes hello there", "got 400 bytes hello there", "got 600 bytes hello there"]);
    expect(readFileSync(join(dir, "starts"), "utf8")).toBe("x");
    transcriber.close();
  });

  it("drops a turn another one replaced before it ended", async () => {
    const { python, modelDir } = fakeDecoder(COUNTING);
    const transcriber = found(python, modelDir);
    const first = transcriber.startTurn();
    const next = transcriber.startTurn();
    first.hear(second);
    next.hear({ samples: new Int16Array(10), sampleRate: 16_000 });
    await expect(first.end()).rejects.toThrow("cut short");
    expect(await next.end()).toBe("got 20 bytes hello there");
    transcriber.close();
  });

  it("rejects the turns a dying decoder was decoding, with what it said, and starts another for the next turn", async () => {
    const { python, modelDir, dir } = fakeDecoder(`const fs = require("node:fs");
      if (!fs.existsSync(__dirname + "/died")) {
        for await (const m of messages) if (m.kind === "E") { fs.writeFileSync(__dirname + "/died", ""); console.error("model broken"); process.exit(3); }
      }
      ${COUNTING}`);
    const transcriber = found(python, modelDir);
    await expect(transcribe(transcriber, second)).rejects.toThrow("the PocketSphinx decoder exited (3): model broken");
    expect(existsSync(join(dir, "died"))).toBe(true);
    expect(await transcribe(transcriber, { samples: new Int16Array(100), sampleRate: 16_000 })).toBe("got 200 bytes hello there");
    transcriber.close();
  });

  it("gives up on a decoder that hangs, and kills it", async () => {
    const { python, modelDir, dir } = fakeDecoder(
      `require("node:fs").writeFileSync(__dirname + "/pid", String(process.pid)); for await (const m of messages) {}`,
    );
    const transcriber = found(python, modelDir, 500);
    await expect(transcribe(transcriber, second)).rejects.toThrow("SIGKILL");
    const pid = Number(readFileSync(join(dir, "pid"), "utf8"));
    // Killed: gone, or a zombie until whoever inherits it reaps it (how soon depends on the machine's init).
    const dead = () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z");
    for (let waited = 0; !dead() && waited < 5_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(dead()).toBe(true);
  });
});

const lookup = PocketSphinxTranscriber.find();
const installed = "transcriber" in lookup;

// The bootstrap installs PocketSphinx; a machine without it skips only these, saying why.
describe.skipIf(!installed)("PocketSphinxTranscriber, skipped where python3-pocketsphinx and pocketsphinx-en-us are not installed", () => {
  let voice: ESpeakVoice;
  let transcriber: PocketSphinxTranscriber;
  beforeAll(async () => {
    voice = await ESpeakVoice.load({ wordsPerMinute: 140 });
    if (!("transcriber" in lookup)) throw new Error(lookup.missing);
    transcriber = lookup.transcriber;
  });
  afterAll(() => transcriber.close());

  /** Word recall over SENTENCES in a voice, each printed, with the decoder's CPU. */
  async function recallOf(name: string, synthesize: (text: string) => Promise<Speech>): Promise<number> {
    let heard = 0;
    let said = 0;
    let cpuMs = 0;
    let speechS = 0;
    for (const sentence of SENTENCES) {
      const speech = await synthesize(sentence);
      const before = cpuMsOf(transcriber.pid);
      const text = await transcribe(transcriber, speech);
      cpuMs += cpuMsOf(transcriber.pid) - before;
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
    expect(await transcribe(transcriber, { samples: new Int16Array(RECOGNITION_RATE), sampleRate: RECOGNITION_RATE })).toBe("");
    expect(await transcribe(transcriber, { samples: new Int16Array(0), sampleRate: RECOGNITION_RATE })).toBe("");
  });

  // The decoder adapts to the speaker's channel over a session's turns (PocketSphinx's live cepstral mean),
  // so the same audio twice may give different words: these check what was heard against what was said,
  // in Flite's voice, which it follows well enough to tell two sentences apart.
  it.skipIf(!("voice" in flite))("decodes turns that ended together each to its own words, in order (skipped without flite)", async () => {
    if (!("voice" in flite)) throw new Error(flite.missing);
    const slt = flite.voice;
    const [a, b] = SENTENCES.slice(0, 2) as [string, string];
    const [heardA, heardB] = await Promise.all([a, b].map(async (text) => transcribe(transcriber, await slt.synthesize(text, "slt"))));
    expect(wordRecall(a, heardA as string)).toBeGreaterThan(wordRecall(b, heardA as string));
    expect(wordRecall(b, heardB as string)).toBeGreaterThan(wordRecall(a, heardB as string));
  });

  it.skipIf(!("voice" in flite))(
    "decodes a turn heard in real time, 20 ms at a time, and prints how soon after its end its words are ready (skipped without flite)",
    async () => {
      if (!("voice" in flite)) throw new Error(flite.missing);
      const said = SENTENCES[2] as string;
      const speech = await flite.voice.synthesize(said, "slt");
      const turn = transcriber.startTurn();
      const piece = (speech.sampleRate / 1000) * 20;
      for (let i = 0; i < speech.samples.length; i += piece) {
        turn.hear({ samples: speech.samples.subarray(i, i + piece), sampleRate: speech.sampleRate });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const endedAt = performance.now();
      const heard = await turn.end();
      console.log(
        `transcriber: a ${(speech.samples.length / speech.sampleRate).toFixed(1)} s turn heard in real time was decoded ${Math.round(performance.now() - endedAt)} ms after its end: ${heard}`,
      );
      expect(wordRecall(said, heard)).toBeGreaterThanOrEqual(FLITE_RECALL_FLOOR);
    },
  );
});

/** CPU time of a process so far, in ms. */
function cpuMsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15 of stat (here 12 and 13 after the command's name), in ticks of 10 ms.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
