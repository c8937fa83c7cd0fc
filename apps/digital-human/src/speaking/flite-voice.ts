/**
 * CMU Flite's voices (BSD-style licence; Debian's `flite`): a US English woman (SLT), two men (RMS, KAL)
 * and a Scottish man (AWB), far easier on the ear than eSpeak and far easier for speech recognition to
 * follow. Each sentence is one run of the `flite` program: tens of milliseconds for a sentence, nothing
 * held in memory between sentences. Flite writes its WAV to a file it opens by name, which a socket (what
 * Node gives a child for its output) is not, so it writes to a file of its own in memory (/dev/shm where
 * there is one), read and removed at once.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Speech } from "./voice.js";

const PROGRAM = "flite";
/** A sentence takes tens of milliseconds; one still running after this is stuck. */
const SYNTHESIS_TIMEOUT_MS = 10_000;

export class FliteVoice {
  private dir: string | undefined;

  private constructor(private readonly program: string) {}

  /** The voice, or what is missing for it: the `flite` program on PATH. */
  static find(path = process.env.PATH ?? ""): { voice: FliteVoice } | { missing: string } {
    const program = path
      .split(":")
      .filter((dir) => dir !== "")
      .map((dir) => join(dir, PROGRAM))
      .find((candidate) => existsSync(candidate));
    return program === undefined
      ? { missing: `${PROGRAM} is not on PATH (Debian: apt-get install flite)` }
      : { voice: new FliteVoice(program) };
  }

  /** `text` in Flite's voice `name` (slt, rms, awb, kal16, ...). */
  async synthesize(text: string, name: string): Promise<Speech> {
    this.dir ??= mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "dhs-flite-"));
    const file = join(this.dir, `${crypto.randomUUID()}.wav`);
    try {
      await this.run(["-voice", name, "-t", text, "-o", file]);
      return readWav(await readFile(file));
    } finally {
      await rm(file, { force: true });
    }
  }

  private run(args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.program, args, { stdio: ["ignore", "ignore", "pipe"] });
      let errors = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), SYNTHESIS_TIMEOUT_MS);
      child.stderr.on("data", (chunk: Buffer) => {
        errors += chunk.toString();
      });
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        // It cannot open its output: a message and exit code 0.
        if (code !== 0 || /can't open/i.test(errors)) {
          reject(new Error(`flite ${signal ?? `exited ${code}`}: ${errors.trim().slice(0, 200)}`));
        } else resolve();
      });
    });
  }
}

/** The samples and rate of a 16-bit mono PCM WAV (its `fmt ` and `data` chunks, wherever they are). */
export function readWav(wav: Buffer): Speech {
  if (wav.toString("ascii", 0, 4) !== "RIFF" || wav.toString("ascii", 8, 12) !== "WAVE") throw new Error("not a WAV file");
  let sampleRate = 0;
  for (let at = 12; at + 8 <= wav.length; ) {
    const id = wav.toString("ascii", at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === "fmt ") {
      if (wav.readUInt16LE(at + 8) !== 1 || wav.readUInt16LE(at + 10) !== 1 || wav.readUInt16LE(at + 22) !== 16) {
        throw new Error("not 16-bit mono PCM");
      }
      sampleRate = wav.readUInt32LE(at + 12);
    } else if (id === "data") {
      const end = Math.min(wav.length, at + 8 + size);
      const samples = new Int16Array(Math.floor((end - at - 8) / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = wav.readInt16LE(at + 8 + i * 2);
      if (sampleRate === 0) throw new Error("a WAV without its format before its data");
      return { samples, sampleRate };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error("a WAV without data");
}
