/**
 * A cheap loudness gate ahead of the voice pipeline. Silero VAD costs about a tenth of a core per stream
 * when it hears every frame, the agent session runs two streams of it (its own, and the speech-to-text's,
 * which cuts turns with it), and every frame the session receives passes through several of the
 * framework's web streams; a participant is quiet most of a session (they listen to the digital human).
 * So the gate lets nothing through while the room is quiet, and wakes (with the last 300 ms, so no word's
 * start is lost) on the first frame louder than a quiet room, until the model has heard the speaker stop
 * and a moment more.
 */
import type { AudioFrame } from "@livekit/rtc-node";
import { rms } from "../speaking/audio.js";

/** RMS of a 16-bit frame above which the room is not quiet (about -45 dBFS; a quiet room is below -55). */
export const WAKE_RMS = 180;
const PRE_ROLL_MS = 300;
/** How long the gate stays open after the last loud frame: the VAD needs 600 ms of quiet to end a turn. */
const STAY_AWAKE_MS = 1500;

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
