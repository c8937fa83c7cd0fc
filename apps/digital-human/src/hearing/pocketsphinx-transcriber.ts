/**
 * The reference Transcriber: CMU PocketSphinx (BSD-2-Clause) with its US English model, from Debian's
 * `pocketsphinx-en-us` and `python3-pocketsphinx` packages. It runs on the machine with nothing downloaded
 * at run time, and its accuracy is modest (about 85% of the words of a clear voice such as Flite's slt,
 * 40% of eSpeak's robotic one; less for a noisy microphone): enough for captions and an LLM's
 * input, not for a transcript a business relies on.
 *
 * One decoder process per job (decoder/pocketsphinx-decoder.py), kept for the whole session: its model
 * is loaded once, and each turn is decoded while the participant speaks, so the words are ready about a
 * tenth of a second after the turn ends (a decoder run per turn took 1.5 to 2.5 s: half a second to load
 * the model, then all the turn's audio). The audio reaches it through a pipe, never a file. A decoder that
 * dies costs the turn it was decoding; the next turn starts another.
 */
import { type ChildProcessByStdio, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { resample } from "../speaking/audio.js";
import type { Speech } from "../speaking/voice.js";
import { type Transcriber, type TranscriberTurn, words } from "./transcriber.js";

/** PocketSphinx's acoustic model takes 16 kHz mono. */
export const RECOGNITION_RATE = 16_000;
const DEFAULT_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
/** Debian's own Python, whose packages include python3-pocketsphinx (a python3 first on PATH may not). */
const DEFAULT_PYTHON = "/usr/bin/python3";
const DECODER_SCRIPT = fileURLToPath(new URL("../../decoder/pocketsphinx-decoder.py", import.meta.url));
/** The end of a turn takes well under a second; a decoder still silent after this is stuck. */
const DECODE_TIMEOUT_MS = 10_000;
const INSTALL = "Debian: apt-get install python3-pocketsphinx pocketsphinx-en-us";

export type TranscriberLookup = { transcriber: PocketSphinxTranscriber } | { missing: string };

interface Options {
  python: string;
  script: string;
  modelDir: string;
  decodeTimeoutMs: number;
}

type Decoder = ChildProcessByStdio<Writable, Readable, Readable>;

export class PocketSphinxTranscriber implements Transcriber {
  private decoder: Decoder | undefined;
  /** Turns that have ended, oldest first, each waiting for its line of the decoder's output. */
  private readonly waiting: { resolve(text: string): void; reject(error: Error): void; timer: NodeJS.Timeout }[] = [];
  private current: object | undefined;

  private constructor(private readonly options: Options) {}

  /**
   * The transcriber, or what is missing for it (Python's PocketSphinx or the model's files): a worker
   * without them records only its own lines and says so once.
   */
  static find(options: Partial<Options> = {}): TranscriberLookup {
    const found: Options = {
      python: options.python ?? DEFAULT_PYTHON,
      script: options.script ?? DECODER_SCRIPT,
      modelDir: options.modelDir ?? DEFAULT_MODEL_DIR,
      decodeTimeoutMs: options.decodeTimeoutMs ?? DECODE_TIMEOUT_MS,
    };
    if (!existsSync(found.python)) return { missing: `${found.python} is missing (${INSTALL})` };
    const missingModel = modelFiles(found.modelDir).find((file) => !existsSync(file));
    if (missingModel !== undefined) return { missing: `${missingModel} is missing (${INSTALL})` };
    try {
      execFileSync(found.python, ["-c", "import pocketsphinx"], { stdio: "ignore", timeout: 10_000 });
    } catch {
      return { missing: `${found.python} cannot import pocketsphinx (${INSTALL})` };
    }
    return { transcriber: new PocketSphinxTranscriber(found) };
  }

  /** Starts the decoder now, so that its model is loaded before the participant's first turn. */
  warm(): void {
    this.running();
  }

  startTurn(): TranscriberTurn {
    const decoder = this.running();
    const turn = {};
    this.current = turn;
    send(decoder, "S");
    const live = () => this.current === turn && this.decoder === decoder;
    return {
      hear: (speech: Speech) => {
        if (!live() || speech.samples.length === 0) return;
        const pcm = resample(speech.samples, speech.sampleRate, RECOGNITION_RATE);
        send(decoder, "A", Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
      },
      end: () => {
        if (!live()) return Promise.reject(new Error("the turn was cut short: a later turn started, or the decoder exited"));
        this.current = undefined;
        send(decoder, "E");
        return new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => decoder.kill("SIGKILL"), this.options.decodeTimeoutMs);
          this.waiting.push({ resolve, reject, timer });
        });
      },
    };
  }

  /** The decoder's process, while it runs (for its CPU and memory to be measured). */
  get pid(): number | undefined {
    return this.decoder?.pid;
  }

  /** Stops the decoder (the job ends); a turn still waiting for its words is rejected. */
  close(): void {
    this.decoder?.kill("SIGTERM");
  }

  private running(): Decoder {
    if (this.decoder !== undefined) return this.decoder;
    const { python, script, modelDir } = this.options;
    const decoder = spawn(python, [script, modelDir], { stdio: ["pipe", "pipe", "pipe"] });
    this.decoder = decoder;
    let pending = "";
    decoder.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        const turn = this.waiting.shift();
        clearTimeout(turn?.timer);
        // Fillers, should the decoder mark any, are not words.
        turn?.resolve(words(line.replace(/<[^>]*>|\[[^\]]*\]|\([^)]*\)/g, " ")).join(" "));
      }
    });
    let stderr = "";
    decoder.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-500);
    });
    // A decoder that died closes its stdin: the exit below says why, not the failed write.
    decoder.stdin.on("error", () => undefined);
    const gone = (why: string) => {
      if (this.decoder !== decoder) return;
      this.decoder = undefined;
      const error = new Error(`the PocketSphinx decoder exited (${why})${stderr ? `: ${stderr.trim()}` : ""}`);
      for (const turn of this.waiting.splice(0)) {
        clearTimeout(turn.timer);
        turn.reject(error);
      }
    };
    decoder.on("error", (error) => gone(error.message));
    // On close, not exit: the last line it printed is read by then.
    decoder.on("close", (code, signal) => gone(String(signal ?? code)));
    return decoder;
  }
}

/** One message of the decoder's protocol (decoder/pocketsphinx-decoder.py): its kind, length and bytes. */
function send(decoder: Decoder, kind: "S" | "A" | "E", payload: Buffer = Buffer.alloc(0)): void {
  const header = Buffer.alloc(5);
  header.write(kind, 0, "ascii");
  header.writeUInt32LE(payload.length, 1);
  decoder.stdin.write(payload.length > 0 ? Buffer.concat([header, payload]) : header);
}

function modelFiles(modelDir: string): string[] {
  return [join(modelDir, "en-us"), join(modelDir, "en-us.lm.bin"), join(modelDir, "cmudict-en-us.dict")];
}
