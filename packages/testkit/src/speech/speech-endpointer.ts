/**
 * Where a stream of audio holds utterances, by its loudness: speech starts at a loud 10 ms frame and ends
 * after enough quiet ones. A streaming stand-in (Deepgram's listen) cuts what the client sends into the
 * utterances it transcribes and answers, as the provider's own endpointer does; synthesized speech between
 * stretches of silence, what the tests send, has edges no subtler detector would place differently.
 */

export interface Utterance {
  /** The utterance's audio, a little of what came before it included, its trailing quiet not. */
  samples: Int16Array;
  /** Seconds from the stream's start. */
  start: number;
  end: number;
}

export interface EndpointerOptions {
  /** Quiet that ends an utterance (Deepgram's `endpointing`). */
  quietMs: number;
  /** An utterance this long is cut, as Deepgram finalizes long speech: memory stays bounded. */
  maxUtteranceS?: number;
}

const FRAME_MS = 10;
/** RMS of 16-bit samples that starts speech (about -35 dBFS), and under which a frame is quiet. */
const SPEECH_LEVEL = 600;
const QUIET_LEVEL = 300;
/** Audio kept from before the first loud frame: a word's soft onset. */
const PREROLL_MS = 200;

export class SpeechEndpointer {
  private readonly frame: number;
  private readonly quietFrames: number;
  private readonly maxFrames: number;
  private readonly prerollFrames: number;
  private partial = new Int16Array(0);
  private preroll: Int16Array[] = [];
  private speech: Int16Array[] | undefined;
  private startFrame = 0;
  private quiet = 0;
  /** Frames heard since the stream started. */
  private frames = 0;

  constructor(
    private readonly sampleRate: number,
    options: EndpointerOptions,
  ) {
    this.frame = Math.max(1, Math.round((sampleRate * FRAME_MS) / 1000));
    this.quietFrames = Math.max(1, Math.round(options.quietMs / FRAME_MS));
    this.maxFrames = Math.round(((options.maxUtteranceS ?? 30) * 1000) / FRAME_MS);
    this.prerollFrames = PREROLL_MS / FRAME_MS;
  }

  /** Seconds of audio heard so far. */
  get position(): number {
    return (this.frames * this.frame + this.partial.length) / this.sampleRate;
  }

  get speaking(): boolean {
    return this.speech !== undefined;
  }

  /** More audio; says when speech started in it (seconds) and which utterances it ended. */
  push(samples: Int16Array): { started: number[]; ended: Utterance[] } {
    const all = new Int16Array(this.partial.length + samples.length);
    all.set(this.partial);
    all.set(samples, this.partial.length);
    const started: number[] = [];
    const ended: Utterance[] = [];
    let at = 0;
    for (; at + this.frame <= all.length; at += this.frame) {
      const frame = all.slice(at, at + this.frame);
      const level = rms(frame);
      this.frames++;
      if (this.speech === undefined) {
        this.preroll.push(frame);
        // This frame and PREROLL_MS before it.
        if (this.preroll.length > this.prerollFrames + 1) this.preroll.shift();
        if (level < SPEECH_LEVEL) continue;
        this.speech = this.preroll;
        this.preroll = [];
        this.startFrame = this.frames - this.speech.length;
        this.quiet = 0;
        started.push((this.startFrame * this.frame) / this.sampleRate);
        continue;
      }
      this.speech.push(frame);
      this.quiet = level < QUIET_LEVEL ? this.quiet + 1 : 0;
      if (this.quiet >= this.quietFrames || this.speech.length >= this.maxFrames) ended.push(this.end());
    }
    this.partial = all.slice(at);
    return { started, ended };
  }

  /** The utterance under way, ended now (Deepgram's Finalize and CloseStream), or undefined in quiet. */
  flush(): Utterance | undefined {
    if (this.speech === undefined) return undefined;
    if (this.partial.length > 0) this.speech.push(this.partial);
    this.partial = new Int16Array(0);
    return this.end();
  }

  private end(): Utterance {
    const frames = this.speech ?? [];
    this.speech = undefined;
    const kept = frames.slice(0, frames.length - Math.min(this.quiet, frames.length - 1));
    this.quiet = 0;
    const samples = new Int16Array(kept.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const f of kept) {
      samples.set(f, at);
      at += f.length;
    }
    const start = (this.startFrame * this.frame) / this.sampleRate;
    return { samples, start, end: start + samples.length / this.sampleRate };
  }
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}
