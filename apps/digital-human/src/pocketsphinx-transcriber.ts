/**
 * The reference Transcriber: CMU PocketSphinx (BSD-2-Clause) with its US English model, from Debian's
 * `pocketsphinx` and `pocketsphinx-en-us` packages. It runs on the machine with nothing downloaded at run
 * time, and its accuracy is modest (about half the words of clear speech; less for eSpeak's robotic
 * voice or a noisy microphone): enough for captions that show what was heard, not for a transcript a
 * business relies on. Each turn is one run of `pocketsphinx_continuous`, its 16 kHz PCM piped to the
 * decoder's standard input (a participant's voice is never written to disk): about half a second of a
 * core to load the model plus about a fifth of the turn's length to decode it. Turns are decoded one at a
 * time per job, so a talkative participant queues, never stacks, CPU.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { resample } from "./audio.js";
import { type Transcriber, words } from "./transcriber.js";
import type { Speech } from "./voice.js";

/** PocketSphinx's acoustic model takes 16 kHz mono. */
export const RECOGNITION_RATE = 16_000;
const DEFAULT_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
const DECODER = "pocketsphinx_continuous";
/** A turn is a few seconds; a decoder still running after this is stuck, and its words are lost. */
const DECODE_TIMEOUT_MS = 30_000;

export type TranscriberLookup = { transcriber: PocketSphinxTranscriber } | { missing: string };

export class PocketSphinxTranscriber implements Transcriber {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly decoder: string,
    private readonly modelDir: string,
    private readonly decodeTimeoutMs: number,
  ) {}

  /**
   * The transcriber, or what is missing for it (the decoder on PATH or the model's files): a worker
   * without them records only its own lines and says so once.
   */
  static find(options: { modelDir?: string; path?: string; decodeTimeoutMs?: number } = {}): TranscriberLookup {
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
    return { transcriber: new PocketSphinxTranscriber(decoder, modelDir, options.decodeTimeoutMs ?? DECODE_TIMEOUT_MS) };
  }

  transcribe(speech: Speech): Promise<string> {
    const turn = this.queue.then(() => this.decode(speech));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async decode(speech: Speech): Promise<string> {
    if (speech.samples.length === 0) return "";
    const pcm = resample(speech.samples, speech.sampleRate, RECOGNITION_RATE);
    const [hmm, lm, dict] = modelFiles(this.modelDir) as [string, string, string];
    // Raw 16-bit little-endian samples on stdin: the decoder takes a headerless file as such.
    const args = ["-infile", "/dev/stdin", "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null"];
    const stdout = await new Promise<string>((resolve, reject) => {
      // Node's stdio pipes are sockets, which the decoder cannot open as /dev/stdin: cat hands it a pipe.
      // In a process group of its own, so a stuck decoder is killed with its shell and cat.
      const decoder = spawn("sh", ["-c", 'cat | exec "$0" "$@"', this.decoder, ...args], {
        stdio: ["pipe", "pipe", "ignore"],
        detached: true,
      });
      const stuck = setTimeout(() => {
        try {
          if (decoder.pid !== undefined) process.kill(-decoder.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, this.decodeTimeoutMs);
      const out: Buffer[] = [];
      decoder.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      decoder.on("error", (error) => {
        clearTimeout(stuck);
        reject(error);
      });
      decoder.on("close", (code, signal) => {
        clearTimeout(stuck);
        if (code === 0) resolve(Buffer.concat(out).toString("utf8"));
        else reject(new Error(`${DECODER} exited (${signal ?? code})`));
      });
      // A decoder that died early closes its stdin: the close above says why, not this write.
      decoder.stdin.on("error", () => undefined);
      decoder.stdin.end(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    });
    // One line per utterance PocketSphinx found in the turn; fillers it marks as such are dropped.
    return words(stdout.replace(/<[^>]*>|\[[^\]]*\]|\([^)]*\)/g, " ")).join(" ");
  }
}

function modelFiles(modelDir: string): string[] {
  return [join(modelDir, "en-us"), join(modelDir, "en-us.lm.bin"), join(modelDir, "cmudict-en-us.dict")];
}
