/**
 * The worker's voice (voice-server.ts: eSpeak NG, flite, or whatever answers the same way) as a TTS of
 * LiveKit's agents framework. It synthesizes a whole text at a time; the framework cuts a reply into
 * sentences and asks for each as the LLM finishes it (its StreamAdapter), so the first sentence is heard
 * while the rest are written. Its audio comes out at the speaker's rate, in 20 ms frames, so a reply cut
 * off is cut within a frame.
 */
import { randomUUID } from "node:crypto";
import { type APIConnectOptions, tts } from "@livekit/agents";
import { AudioFrame } from "@livekit/rtc-node";
import { resample } from "./audio.js";
import type { Voice } from "./voice.js";

const FRAME_MS = 20;

export class VoiceTTS extends tts.TTS {
  label = "dhs.VoiceTTS";

  /** @param voiceId the persona's voice (its default when undefined) */
  constructor(
    private readonly voice: Voice,
    private readonly voiceId: string | undefined,
    sampleRate: number,
  ) {
    super(sampleRate, 1, { streaming: false });
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return new VoiceChunkedStream(text, this, connOptions, abortSignal, (signal) => this.voice.synthesize(text, this.voiceId, signal));
  }

  stream(): tts.SynthesizeStream {
    throw new Error("VoiceTTS synthesizes whole sentences: the framework wraps it in its StreamAdapter");
  }
}

class VoiceChunkedStream extends tts.ChunkedStream {
  label = "dhs.VoiceChunkedStream";

  constructor(
    text: string,
    private readonly owner: VoiceTTS,
    connOptions: APIConnectOptions | undefined,
    abortSignal: AbortSignal | undefined,
    private readonly speak: (signal: AbortSignal) => ReturnType<Voice["synthesize"]>,
  ) {
    super(text, owner, connOptions, abortSignal);
  }

  protected async run(): Promise<void> {
    let speech: Awaited<ReturnType<Voice["synthesize"]>>;
    try {
      speech = await this.speak(this.abortSignal);
    } catch (error) {
      // A reply cut off is no failure of the voice's.
      if (this.abortSignal.aborted) return;
      throw error;
    }
    const rate = this.owner.sampleRate;
    const samples = resample(speech.samples, speech.sampleRate, rate);
    const frameSamples = (rate * FRAME_MS) / 1000;
    const requestId = randomUUID();
    for (let offset = 0; offset < samples.length; offset += frameSamples) {
      const chunk = samples.slice(offset, offset + frameSamples);
      this.queue.put({
        requestId,
        segmentId: requestId,
        frame: new AudioFrame(chunk, rate, 1, chunk.length),
        final: offset + frameSamples >= samples.length,
      });
    }
  }
}
