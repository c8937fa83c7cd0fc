/**
 * A Transcriber (PocketSphinx here, run once per turn) as a speech-to-text of LiveKit's agents framework.
 * It recognizes a whole turn at a time; the framework's StreamAdapter cuts the participant's audio into
 * turns with the session's VAD and asks for each one.
 */
import { type AudioBuffer, asLanguageCode, mergeFrames, stt } from "@livekit/agents";
import type { Transcriber } from "./transcriber.js";

export class TranscriberSTT extends stt.STT {
  label = "dhs.TranscriberSTT";

  constructor(
    private readonly transcriber: Transcriber,
    private readonly language = "en",
  ) {
    super({ streaming: false, interimResults: false });
  }

  protected async _recognize(buffer: AudioBuffer): Promise<stt.SpeechEvent> {
    const frame = mergeFrames(buffer);
    const samples = frame.data.subarray(0, frame.samplesPerChannel * frame.channels);
    const mono = frame.channels === 1 ? samples : samples.filter((_, i) => i % frame.channels === 0);
    const text = await this.transcriber.transcribe({ samples: mono, sampleRate: frame.sampleRate });
    const endTime = frame.samplesPerChannel / frame.sampleRate;
    return {
      type: stt.SpeechEventType.FINAL_TRANSCRIPT,
      alternatives: [{ language: asLanguageCode(this.language), text, startTime: 0, endTime, confidence: text === "" ? 0 : 1 }],
    };
  }

  stream(): stt.SpeechStream {
    throw new Error("TranscriberSTT recognizes whole turns: the framework wraps it in its StreamAdapter");
  }
}
