/**
 * The reference Transcriber: CMU PocketSphinx (BSD-2-Clause) with its US English model, from Debian's
 * `pocketsphinx` and `pocketsphinx-en-us` packages. It runs on the machine with nothing downloaded at run
 * time, and its accuracy is modest (about half the words of clear speech; less for eSpeak's robotic
 * voice or a noisy microphone): enough for captions that show what was heard, not for a transcript a
 * business relies on. Each turn is one run of `pocketsphinx_continuous` on a 16 kHz WAV file: about half
 * a second of a core to load the model plus about a third of the turn's length to decode it. Turns are
 * decoded one at a time per job, so a talkative participant queues, never stacks, CPU.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { resample } from "./speaker.js";
import { type Transcriber, words } from "./transcriber.js";
import type { Speech } from "./voice.js";

const run = promisify(execFile);

/** PocketSphinx's acoustic model takes 16 kHz mono. */
export const RECOGNITION_RATE = 16_000;
export const DEFAULT_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
const DECODER = "pocketsphinx_continuous";
/** A turn is a few seconds; a decoder still running after this is stuck, and its words are lost. */
const DECODE_TIMEOUT_MS = 30_000;

export type TranscriberLookup = { transcriber: PocketSphinxTranscriber } | { missing: string };

export class PocketSphinxTranscriber implements Transcriber {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly decoder: string,
    private readonly modelDir: string,
  ) {}

  /**
   * The transcriber, or what is missing for it (the decoder on PATH or the model's files): a worker
   * without them records only its own lines and says so once.
   */
  static find(options: { modelDir?: string; path?: string } = {}): TranscriberLookup {
    const modelDir = options.modelDir ?? DEFAULT_MODEL_DIR;
    const path = options.path ?? process.env.PATH ?? "";
    const decoder = path
      .split(":")
      .filter((dir) => dir !== "")
      .map((dir) => join(dir, DECODER))
      .find((candidate) => existsSync(candidate));
    if (decoder === undefined) return { missing: `${DECODER} is not on PATH (Debian: apt-get install pocketsphinx pocketsphinx-en-us)` };
    const missingModel = modelFiles(modelDir).find((file) => !existsSync(file));
    if (missingModel !== undefined) return { missing: `${missingModel} is missing (Debian: apt-get install pocketsphinx-en-us)` };
    return { transcriber: new PocketSphinxTranscriber(decoder, modelDir) };
  }

  transcribe(speech: Speech): Promise<string> {
    const turn = this.queue.then(() => this.decode(speech));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async decode(speech: Speech): Promise<string> {
    if (speech.samples.length === 0) return "";
    const dir = await mkdtemp(join(tmpdir(), "dhs-turn-"));
    try {
      const wav = join(dir, "turn.wav");
      await writeFile(wav, wavFile(resample(speech.samples, speech.sampleRate, RECOGNITION_RATE), RECOGNITION_RATE));
      const [hmm, lm, dict] = modelFiles(this.modelDir);
      const { stdout } = await run(
        this.decoder,
        ["-infile", wav, "-hmm", hmm as string, "-lm", lm as string, "-dict", dict as string, "-logfn", "/dev/null"],
        { timeout: DECODE_TIMEOUT_MS, maxBuffer: 1024 * 1024 },
      );
      // One line per utterance PocketSphinx found in the turn; fillers it marks as such are dropped.
      return words(stdout.replace(/<[^>]*>|\[[^\]]*\]|\([^)]*\)/g, " ")).join(" ");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

function modelFiles(modelDir: string): string[] {
  return [join(modelDir, "en-us"), join(modelDir, "en-us.lm.bin"), join(modelDir, "cmudict-en-us.dict")];
}

/** A 16-bit mono PCM WAV file. */
export function wavFile(samples: Int16Array, sampleRate: number): Buffer {
  const data = samples.length * 2;
  const out = Buffer.alloc(44 + data);
  out.write("RIFF", 0, "ascii");
  out.writeUInt32LE(36 + data, 4);
  out.write("WAVE", 8, "ascii");
  out.write("fmt ", 12, "ascii");
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36, "ascii");
  out.writeUInt32LE(data, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i] as number, 44 + i * 2);
  return out;
}
