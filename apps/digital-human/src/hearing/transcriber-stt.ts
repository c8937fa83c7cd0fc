/**
 * A Transcriber (PocketSphinx here) as a streaming speech-to-text of LiveKit's agents framework. Its stream
 * cuts the participant's audio into turns with a VAD, as the framework's own StreamAdapter does, but hands
 * each turn's audio to the transcriber while the participant is still speaking, not all at once after the
 * turn ended: the words of a turn are ready a fraction of a second after it, not after a whole decode.
 */
import { type APIConnectOptions, type AudioBuffer, asLanguageCode, log, mergeFrames, stt, type VAD, VADEventType } from "@livekit/agents";
import type { AudioFrame } from "@livekit/rtc-node";
import type { Speech } from "../speaking/voice.js";
import { type Transcriber, type TranscriberTurn, transcribe } from "./transcriber.js";

export class TranscriberSTT extends stt.STT {
  label = "dhs.TranscriberSTT";

  constructor(
    private readonly transcriber: Transcriber,
    private readonly vad: VAD,
    private readonly language = "en",
  ) {
    super({ streaming: true, interimResults: false });
  }

  protected async _recognize(buffer: AudioBuffer): Promise<stt.SpeechEvent> {
    const frame = mergeFrames(buffer);
    const text = await transcribe(this.transcriber, mono(frame));
    return finalTranscript(text, this.language, frame.samplesPerChannel / frame.sampleRate);
  }

  stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    return new TurnStream(this, this.transcriber, this.vad, this.language, options?.connOptions);
  }
}

class TurnStream extends stt.SpeechStream {
  label = "dhs.TranscriberSTT.stream";
  private readonly vadStream;

  constructor(
    owner: stt.STT,
    private readonly transcriber: Transcriber,
    vad: VAD,
    private readonly language: string,
    connOptions?: APIConnectOptions,
  ) {
    super(owner, undefined, connOptions);
    this.vadStream = vad.stream();
  }

  override close(): void {
    super.close();
    this.vadStream.close();
  }

  protected async run(): Promise<void> {
    await Promise.all([this.forwardInput(), this.recognize()]);
  }

  private async forwardInput(): Promise<void> {
    for await (const input of this.input) {
      if (input === TurnStream.FLUSH_SENTINEL) this.vadStream.flush();
      else this.vadStream.pushFrame(input);
    }
    // Closed with the stream (the session ends) while this loop ran: nothing more to end.
    if (!this.closed) this.vadStream.endInput();
  }

  private async recognize(): Promise<void> {
    let turn: TranscriberTurn | undefined;
    let heardSamples = 0;
    let sampleRate = 0;
    const hear = (frames: AudioFrame[]) => {
      for (const frame of frames) {
        const speech = mono(frame);
        heardSamples += speech.samples.length;
        sampleRate = frame.sampleRate;
        turn?.hear(speech);
      }
    };
    // The VAD reports each window it judged (INFERENCE_DONE) before the start of speech it decides on:
    // the start's frames hold the speech so far (with its prefix padding), each later window its own.
    for await (const ev of this.vadStream) {
      if (ev.type === VADEventType.START_OF_SPEECH) {
        turn = this.transcriber.startTurn();
        heardSamples = 0;
        hear(ev.frames);
        this.emit({ type: stt.SpeechEventType.START_OF_SPEECH });
      } else if (ev.type === VADEventType.INFERENCE_DONE) {
        if (turn) hear(ev.frames);
      } else if (ev.type === VADEventType.END_OF_SPEECH && turn) {
        const speechEndTime = Date.now() - ev.silenceDuration - ev.inferenceDuration;
        this.emit({ type: stt.SpeechEventType.END_OF_SPEECH, speechEndTime });
        const ending = turn;
        turn = undefined;
        const text = await ending.end().catch((error: unknown) => {
          log()
            .child({ error: String(error) })
            .error(`${this.label}: a turn could not be recognized`);
          return "";
        });
        // As the framework's StreamAdapter: a turn with no words is no transcript.
        if (text === "") continue;
        this.emit({ ...finalTranscript(text, this.language, heardSamples / sampleRate), speechEndTime });
      }
    }
  }

  private emit(event: stt.SpeechEvent): void {
    if (!this.queue.closed) this.queue.put(event);
  }
}

function finalTranscript(text: string, language: string, seconds: number): stt.SpeechEvent {
  return {
    type: stt.SpeechEventType.FINAL_TRANSCRIPT,
    alternatives: [{ language: asLanguageCode(language), text, startTime: 0, endTime: seconds, confidence: text === "" ? 0 : 1 }],
  };
}

/** The first channel of a frame, as the transcriber hears it. */
function mono(frame: AudioFrame): Speech {
  const samples = frame.data.subarray(0, frame.samplesPerChannel * frame.channels);
  return { samples: frame.channels === 1 ? samples : samples.filter((_, i) => i % frame.channels === 0), sampleRate: frame.sampleRate };
}
