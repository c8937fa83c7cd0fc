/**
 * Voice activity detection with Silero VAD, through @livekit/agents-plugin-silero: the model ships inside
 * the npm package and runs on the CPU with onnxruntime-node, so nothing is downloaded at run time.
 */
import { type VAD, VADEventType } from "@livekit/agents";
import * as silero from "@livekit/agents-plugin-silero";
import type { AudioFrame } from "@livekit/rtc-node";
import type { Listener, ListenerEvents } from "./listener.js";

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
    void (async () => {
      for await (const frame of audio) {
        if (!open) break;
        stream.pushFrame(frame);
      }
    })().catch(() => undefined);
    void (async () => {
      for await (const event of stream) {
        if (event.type === VADEventType.START_OF_SPEECH) events.speechStarted();
        else if (event.type === VADEventType.END_OF_SPEECH) {
          // The event carries the speech it heard (with some padding), not its duration.
          const heard = event.frames.reduce((s, frame) => s + frame.samplesPerChannel / frame.sampleRate, 0);
          events.speechEnded(heard);
        }
      }
    })().catch(() => undefined);
    return () => {
      open = false;
      stream.close();
    };
  }
}
