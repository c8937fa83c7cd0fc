/**
 * Voice activity detection with Silero VAD, through @livekit/agents-plugin-silero: the model ships inside
 * the npm package and runs on the CPU with onnxruntime-node, so nothing is downloaded at run time.
 *
 * The model costs about a tenth of a core per listener when it hears every frame, and a participant is
 * quiet most of a session (they listen to the digital human). So a cheap loudness gate runs first: the
 * model hears nothing while the room is quiet, and wakes (with the last 300 ms, so no word's start is
 * lost) on the first frame louder than a quiet room, until it has heard the speaker stop and a moment
 * more.
 */
import { type VAD, VADEventType } from "@livekit/agents";
import * as silero from "@livekit/agents-plugin-silero";
import type { AudioFrame } from "@livekit/rtc-node";
import type { Listener, ListenerEvents } from "./listener.js";
import { rms } from "./speaker.js";
import type { Speech } from "./voice.js";

/** RMS of a 16-bit frame above which the room is not quiet (about -45 dBFS; a quiet room is below -55). */
export const WAKE_RMS = 180;
const PRE_ROLL_MS = 300;
/** How long the model keeps listening after the last loud frame: it needs 600 ms of quiet to end a turn. */
const STAY_AWAKE_MS = 1500;

export class SileroListener implements Listener {
  private constructor(private readonly vad: VAD) {}

  /** Loads the model (about 100 ms); a job process does it while it waits for a job. */
  static async load(): Promise<SileroListener> {
    // Milliseconds. A pause of 600 ms ends a turn: long enough not to answer between words.
    return new SileroListener(await silero.VAD.load({ minSilenceDuration: 600, minSpeechDuration: 100 }));
  }

  listen(audio: AsyncIterable<AudioFrame>, events: ListenerEvents): () => void {
    const stream = this.vad.stream();
    let open = true;
    let speaking = false;
    const gate = new LoudnessGate();
    void (async () => {
      for await (const frame of audio) {
        if (!open) break;
        for (const heard of gate.pass(frame, speaking)) stream.pushFrame(heard);
      }
    })().catch(() => undefined);
    void (async () => {
      for await (const event of stream) {
        if (event.type === VADEventType.START_OF_SPEECH) {
          speaking = true;
          events.speechStarted();
        } else if (event.type === VADEventType.END_OF_SPEECH) {
          speaking = false;
          // The event carries the speech it heard (with some padding), not its duration.
          const heard = event.frames.reduce((s, frame) => s + frame.samplesPerChannel / frame.sampleRate, 0);
          events.speechEnded(heard, turnSpeech(event.frames));
        }
      }
    })().catch(() => undefined);
    return () => {
      open = false;
      stream.close();
    };
  }
}

/** The frames of one turn as one mono recording (the listener's stream is mono at one rate). */
function turnSpeech(frames: AudioFrame[]): Speech {
  const samples = new Int16Array(frames.reduce((n, frame) => n + frame.samplesPerChannel, 0));
  let offset = 0;
  for (const frame of frames) {
    samples.set(frame.data.subarray(0, frame.samplesPerChannel), offset);
    offset += frame.samplesPerChannel;
  }
  return { samples, sampleRate: frames[0]?.sampleRate ?? 16_000 };
}

/** Lets frames through while the room is not quiet; holds the last 300 ms while it is. */
export class LoudnessGate {
  private readonly held: AudioFrame[] = [];
  private heldMs = 0;
  private quietForMs = Number.POSITIVE_INFINITY;

  /** The frames the model should hear now (none, this one, or the held ones and this one). */
  pass(frame: AudioFrame, modelHearsSpeech: boolean): AudioFrame[] {
    const ms = (frame.samplesPerChannel / frame.sampleRate) * 1000;
    const wasAwake = this.quietForMs < STAY_AWAKE_MS;
    this.quietForMs = rms(frame.data) > WAKE_RMS ? 0 : this.quietForMs + ms;
    if (this.quietForMs < STAY_AWAKE_MS || modelHearsSpeech) {
      const out = wasAwake ? [frame] : [...this.held, frame];
      this.held.length = 0;
      this.heldMs = 0;
      return out;
    }
    this.held.push(frame);
    this.heldMs += ms;
    while (this.heldMs > PRE_ROLL_MS && this.held.length > 1) {
      const dropped = this.held.shift() as AudioFrame;
      this.heldMs -= (dropped.samplesPerChannel / dropped.sampleRate) * 1000;
    }
    return [];
  }
}
