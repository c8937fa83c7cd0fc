/**
 * Plays speech into the published audio track in real time, 20 ms at a time, and knows how loud the
 * frame playing now is: the face's mouth follows that, frame by frame, so it moves with the voice the
 * browser hears, whatever the voice says. Between utterances it sends nothing (after a short tail of
 * silence that lets the mouth close with the sound): encoding silence would cost a session CPU for most
 * of its life, and a receiver plays a track that sends nothing as silence.
 */
import { AudioFrame } from "@livekit/rtc-node";
import type { Speech } from "./voice.js";

export const SAMPLE_RATE = 48_000;
const FRAME_SAMPLES = SAMPLE_RATE / 50;
/** RMS of a loud syllable of eSpeak's, as a 16-bit sample: the mouth is wide open at this level. */
const FULL_OPEN_RMS = 3500;

/** Where the frames go: an rtc-node AudioSource, or a test's recorder. */
export interface AudioSink {
  captureFrame(frame: AudioFrame): Promise<void>;
}

interface Utterance {
  samples: Int16Array;
  offset: number;
  text: string;
  started: boolean;
  done: () => void;
}

export class Speaker {
  private readonly queue: Utterance[] = [];
  /** Levels of frames handed to the sink but not yet heard, oldest first. */
  private readonly inFlight: number[] = [];
  private opening = 0;
  private running = false;
  private readonly silence = new Int16Array(FRAME_SAMPLES);
  /** Silent frames still to send after the last utterance. */
  private tail = 0;
  private wake: (() => void) | undefined;

  /**
   * @param latencyFrames frames the sink holds before they are heard (an AudioSource's queue), so the
   *   mouth opens when the sound is heard, not when it is queued
   * @param onStart called as an utterance's first sound is sent, with how long it lasts: the agent logs
   *   and captions what it says then, and puts it in the transcript
   */
  constructor(
    private readonly sink: AudioSink,
    private readonly latencyFrames = 5,
    private readonly onStart: (text: string, durationS: number) => void = () => undefined,
  ) {}

  /** Whether an utterance is playing or waiting to. */
  get speaking(): boolean {
    return this.queue.length > 0;
  }

  /** How far the mouth is open now, 0..1. */
  mouthOpen(): number {
    return this.opening;
  }

  /** Queues speech; resolves once it has all been sent. */
  say(speech: Speech, text: string): Promise<void> {
    return new Promise((done) => {
      this.queue.push({ samples: resample(speech.samples, speech.sampleRate, SAMPLE_RATE), offset: 0, text, started: false, done });
      this.wake?.();
    });
  }

  /** Drops what has not been said yet. */
  interrupt(): void {
    for (const utterance of this.queue.splice(0)) utterance.done();
  }

  /** Sends frames until stop(); each captureFrame waits while the sink is full, so this runs in real time. */
  async run(): Promise<void> {
    this.running = true;
    while (this.running) {
      if (this.queue.length === 0 && this.tail === 0) {
        this.opening = 0;
        this.inFlight.length = 0;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
        continue;
      }
      const frame = this.nextFrame();
      this.inFlight.push(rms(frame));
      const heard = this.inFlight.length > this.latencyFrames ? (this.inFlight.shift() ?? 0) : 0;
      const target = Math.min(1, heard / FULL_OPEN_RMS);
      // Opens at once, closes over a few frames, as a jaw does.
      this.opening = target > this.opening ? target : this.opening * 0.55 + target * 0.45;
      await this.sink.captureFrame(new AudioFrame(frame, SAMPLE_RATE, 1, FRAME_SAMPLES));
    }
  }

  stop(): void {
    this.running = false;
    this.interrupt();
    this.wake?.();
  }

  private nextFrame(): Int16Array {
    const utterance = this.queue[0];
    if (!utterance) {
      this.tail--;
      return this.silence;
    }
    // Enough silence after it for what is queued to be heard and the mouth to close.
    this.tail = this.latencyFrames + 10;
    if (!utterance.started) {
      utterance.started = true;
      this.onStart(utterance.text, utterance.samples.length / SAMPLE_RATE);
    }
    const frame = new Int16Array(FRAME_SAMPLES);
    frame.set(utterance.samples.subarray(utterance.offset, utterance.offset + FRAME_SAMPLES));
    utterance.offset += FRAME_SAMPLES;
    if (utterance.offset >= utterance.samples.length) {
      this.queue.shift();
      utterance.done();
    }
    return frame;
  }
}

export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

/** Linear interpolation: plenty for speech that was synthesized at 22 kHz. */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return samples;
  const out = new Int16Array(Math.floor((samples.length * to) / from));
  const step = from / to;
  for (let i = 0; i < out.length; i++) {
    const at = i * step;
    const j = Math.floor(at);
    const a = samples[j] ?? 0;
    const b = samples[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (at - j));
  }
  return out;
}
