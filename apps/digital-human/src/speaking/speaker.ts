/**
 * The agent session's audio output: what the framework's voice pipeline says arrives here faster than
 * real time (each sentence as soon as it is synthesized) and is played into the published audio track in
 * real time, 20 ms at a time, so that the face's mouth follows the frame being heard, whatever is said.
 * It tells the framework when a reply starts being heard and how much of it was heard when it finished
 * or was cut off (`clearBuffer`, the participant talking over it): the framework keeps an interrupted
 * reply in the conversation as far as it was heard. Each sentence's text rides on its first frame (the
 * framework's sentence streaming marks it), so a line is captioned as it starts to be heard and put in the
 * transcript, timed, once it ends or is cut.
 *
 * Between replies it sends nothing (after a short tail of silence that lets the mouth close with the
 * sound): encoding silence would cost a session CPU for most of its life, and a receiver plays a track
 * that sends nothing as silence.
 */
import { isTimedString, USERDATA_TIMED_TRANSCRIPT, voice } from "@livekit/agents";
import { AudioFrame } from "@livekit/rtc-node";
import { resample, rms } from "./audio.js";

export const SAMPLE_RATE = 48_000;
const FRAME_SAMPLES = SAMPLE_RATE / 50;
/** RMS of a loud syllable, as a 16-bit sample: the mouth is wide open at this level. */
const FULL_OPEN_RMS = 3500;

/** Where the frames go: an rtc-node AudioSource, or a test's recorder. */
export interface AudioSink {
  captureFrame(frame: AudioFrame): Promise<void>;
}

/** A line of the digital human's, as it was heard. */
export interface HeardLine {
  text: string;
  startedAt: Date;
  endedAt: Date;
  /** Cut off before its end. */
  interrupted: boolean;
}

export interface SpeakerEvents {
  /** A line's first sound was sent: the agent captions it now. */
  lineStarted?(text: string): void;
  /** A line ended or was cut: the agent puts it in the transcript. */
  lineHeard?(line: HeardLine): void;
  /** A reply's first sound was sent (the response-time timeline's last step on this side). */
  replyStarted?(): void;
}

/** One reply of the framework's (a "segment": from its first frame to its flush). */
class Segment {
  played = 0;
  finished = false;
  constructor(readonly id: number) {}
}

type Item =
  | { kind: "frame"; samples: Int16Array; segment: Segment }
  | { kind: "line"; text: string; segment: Segment }
  | { kind: "end"; segment: Segment };

export class Speaker extends voice.AudioOutput {
  private readonly items: Item[] = [];
  /** The segment being captured (frames still arriving), if any. */
  private capturing: Segment | undefined;
  private segments = 0;
  /** Levels of frames handed to the sink but not yet heard, oldest first. */
  private readonly inFlight: number[] = [];
  private opening = 0;
  private running = false;
  private readonly silence = new Int16Array(FRAME_SAMPLES);
  /** Silent frames still to send after the last reply. */
  private tail = 0;
  private wake: (() => void) | undefined;
  private line: { text: string; startedAt: Date; segment: Segment } | undefined;
  /** Samples of a resampled frame not yet sent (frames are sent 20 ms at a time). */
  private partial: Int16Array = new Int16Array(0);

  /**
   * @param latencyFrames frames the sink holds before they are heard (an AudioSource's queue), so the
   *   mouth opens when the sound is heard, not when it is queued
   */
  constructor(
    private readonly sink: AudioSink,
    private readonly latencyFrames = 5,
    private readonly events: SpeakerEvents = {},
  ) {
    super(SAMPLE_RATE, undefined, { pause: false });
  }

  /** Whether a reply is playing or waiting to. */
  get speaking(): boolean {
    return this.items.length > 0 || this.partial.length > 0;
  }

  /** How far the mouth is open now, 0..1. */
  mouthOpen(): number {
    return this.opening;
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    await super.captureFrame(frame);
    if (this.capturing === undefined) this.capturing = new Segment(++this.segments);
    const segment = this.capturing;
    const marks = frame.userdata[USERDATA_TIMED_TRANSCRIPT];
    for (const mark of Array.isArray(marks) ? marks : []) {
      if (isTimedString(mark) && mark.text.trim() !== "") this.items.push({ kind: "line", text: mark.text.trim(), segment });
    }
    const mono = frame.channels === 1 ? frame.data.subarray(0, frame.samplesPerChannel) : firstChannel(frame);
    this.items.push({ kind: "frame", samples: resample(mono, frame.sampleRate, SAMPLE_RATE), segment });
    this.wake?.();
  }

  override flush(): void {
    super.flush();
    const segment = this.capturing;
    this.capturing = undefined;
    if (segment === undefined || segment.finished) return;
    this.items.push({ kind: "end", segment });
    this.wake?.();
  }

  /** Drops what has not been heard yet: every reply queued is finished as interrupted where it stands. */
  override clearBuffer(): void {
    const pending = new Map<number, Segment>();
    for (const item of this.items.splice(0)) pending.set(item.segment.id, item.segment);
    if (this.capturing) pending.set(this.capturing.id, this.capturing);
    this.partial = new Int16Array(0);
    // Frames still to come of a reply cut while it was being captured start a segment of their own.
    if (this.capturing) this.abandonOpenSegment();
    this.endLine(true);
    for (const segment of [...pending.values()].sort((a, b) => a.id - b.id)) this.finish(segment, true);
  }

  /** Sends frames until stop(); each captureFrame of the sink waits while it is full, so this runs in real time. */
  async run(): Promise<void> {
    this.running = true;
    while (this.running) {
      const frame = this.nextFrame();
      if (frame === undefined) {
        this.opening = 0;
        this.inFlight.length = 0;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
        continue;
      }
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
    this.clearBuffer();
    this.wake?.();
  }

  /** The next 20 ms to send, silence in the tail after a reply, or undefined when there is nothing to send. */
  private nextFrame(): Int16Array | undefined {
    const out = new Int16Array(FRAME_SAMPLES);
    let filled = 0;
    while (filled < FRAME_SAMPLES) {
      if (this.partial.length > 0) {
        const take = this.partial.subarray(0, FRAME_SAMPLES - filled);
        out.set(take, filled);
        filled += take.length;
        this.partial = this.partial.subarray(take.length);
        continue;
      }
      const item = this.items.shift();
      if (item === undefined) break;
      if (item.kind === "line") {
        this.endLine(false);
        this.line = { text: item.text, startedAt: new Date(), segment: item.segment };
        this.events.lineStarted?.(item.text);
      } else if (item.kind === "end") {
        this.endLine(false);
        this.finish(item.segment, false);
      } else {
        if (item.segment.played === 0) {
          this.onPlaybackStarted(Date.now());
          this.events.replyStarted?.();
        }
        item.segment.played += item.samples.length;
        this.partial = item.samples;
      }
    }
    if (filled > 0) {
      // Enough silence after it for what is queued to be heard and the mouth to close.
      this.tail = this.latencyFrames + 10;
      return out;
    }
    if (this.tail > 0) {
      this.tail--;
      return this.silence;
    }
    return undefined;
  }

  private endLine(interrupted: boolean): void {
    const line = this.line;
    this.line = undefined;
    if (line === undefined) return;
    this.events.lineHeard?.({ text: line.text, startedAt: line.startedAt, endedAt: new Date(), interrupted });
  }

  private finish(segment: Segment, interrupted: boolean): void {
    if (segment.finished) return;
    segment.finished = true;
    if (this.capturing === segment) this.capturing = undefined;
    this.onPlaybackFinished({ playbackPosition: segment.played / SAMPLE_RATE, interrupted });
  }
}

function firstChannel(frame: AudioFrame): Int16Array {
  const out = new Int16Array(frame.samplesPerChannel);
  for (let i = 0; i < out.length; i++) out[i] = frame.data[i * frame.channels] ?? 0;
  return out;
}
