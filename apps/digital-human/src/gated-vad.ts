/**
 * Silero VAD (through @livekit/agents-plugin-silero: the model ships inside the npm package and runs on
 * the CPU with onnxruntime-node, nothing downloaded at run time) behind a loudness gate, as the agent
 * session's VAD.
 *
 * The model costs about a tenth of a core per stream when it hears every frame, the session runs two
 * streams of it (its own, and the speech-to-text's, which cuts turns with it), and a participant is quiet
 * most of a session (they listen to the digital human). So a cheap loudness gate runs first: the model
 * hears nothing while the room is quiet, and wakes (with the last 300 ms, so no word's start is lost) on
 * the first frame louder than a quiet room, until it has heard the speaker stop and a moment more. The
 * framework reads only durations from the events, never positions in the stream, so the frames the gate
 * holds back change nothing it computes.
 */
import { VAD as VADBase, type VADEvent, VADEventType, VADStream } from "@livekit/agents";
import * as silero from "@livekit/agents-plugin-silero";
import type { AudioFrame } from "@livekit/rtc-node";
import { rms } from "./audio.js";

/** RMS of a 16-bit frame above which the room is not quiet (about -45 dBFS; a quiet room is below -55). */
export const WAKE_RMS = 180;
const PRE_ROLL_MS = 300;
/** How long the model keeps listening after the last loud frame: it needs 600 ms of quiet to end a turn. */
const STAY_AWAKE_MS = 1500;

export class GatedVAD extends VADBase {
  label = "dhs.GatedVAD";

  private constructor(private readonly model: VADBase) {
    super(model.capabilities);
  }

  /** Loads the model (about 100 ms); a job process does it while it waits for a job. */
  static async load(): Promise<GatedVAD> {
    // Milliseconds. A pause of 600 ms ends a turn: long enough not to answer between words.
    return new GatedVAD(await silero.VAD.load({ minSilenceDuration: 600, minSpeechDuration: 100 }));
  }

  override get minSilenceDuration(): number | null {
    return this.model.minSilenceDuration;
  }

  stream(): VADStream {
    return new GatedVADStream(this, this.model.stream());
  }
}

class GatedVADStream extends VADStream {
  private speaking = false;

  constructor(
    vad: VADBase,
    private readonly model: VADStream,
  ) {
    super(vad);
    void this.forwardInput();
    void this.forwardEvents();
  }

  private async forwardInput(): Promise<void> {
    const gate = new LoudnessGate();
    try {
      while (true) {
        const { done, value } = await this.inputReader.read();
        if (done) break;
        if (typeof value === "symbol") this.model.flush();
        else for (const heard of gate.pass(value, this.speaking)) this.model.pushFrame(heard);
      }
      this.model.endInput();
    } catch {
      // The stream was closed while a frame was on its way.
    }
  }

  private async forwardEvents(): Promise<void> {
    for await (const event of this.model as AsyncIterable<VADEvent>) {
      if (event.type === VADEventType.START_OF_SPEECH) this.speaking = true;
      else if (event.type === VADEventType.END_OF_SPEECH) this.speaking = false;
      if (!this.sendVADEvent(event)) break;
    }
  }

  override close(): void {
    this.model.close();
    super.close();
  }
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
