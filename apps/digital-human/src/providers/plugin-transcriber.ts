/**
 * A speech-to-text plugin of LiveKit's agents framework (OpenAI's, Deepgram's) as the digital human's
 * Transcriber: the session's VAD cuts the participant's turns (hearing/transcriber-stt.ts), and each turn
 * goes to the provider while it is spoken. A plugin that takes whole recordings (OpenAI's transcriptions
 * endpoint) gets the turn when it ends; a streaming one (Deepgram's `/v1/listen`) gets a stream of its own
 * per turn, opened as the participant starts, so its connection is made while they speak.
 *
 * A provider that fails, hangs or breaks off fails the turn: the conversation then says once that it did
 * not catch that (conversation-session.ts), and no LLM is sent an empty turn.
 */
import { type APIConnectOptions, stt } from "@livekit/agents";
import { AudioFrame } from "@livekit/rtc-node";
import type { Transcriber, TranscriberTurn } from "../hearing/transcriber.js";
import type { Speech } from "../speaking/voice.js";

/** A turn's words take a second or two at a provider; one still unanswered after this is given up. */
export const TURN_TIMEOUT_MS = 10_000;
/** A turn longer than this is cut there: a minute of speech is no conversational turn (and bounds memory). */
const MAX_TURN_SECONDS = 60;

/** One attempt per turn: a retry would come after the participant expects an answer, and the next turn tries again. */
const ONE_ATTEMPT: APIConnectOptions = { maxRetry: 0, retryIntervalMs: 0, timeoutMs: TURN_TIMEOUT_MS };

export class PluginTranscriber implements Transcriber {
  private lastError: unknown;

  constructor(
    private readonly plugin: stt.STT,
    private readonly timeoutMs = TURN_TIMEOUT_MS,
  ) {
    // The framework reports a stream's failure as an `error` event, which would throw without a listener.
    plugin.on("error", (error) => {
      this.lastError = error.error ?? error;
    });
  }

  startTurn(): TranscriberTurn {
    return this.plugin.capabilities.streaming ? this.streamedTurn() : this.recordedTurn();
  }

  private recordedTurn(): TranscriberTurn {
    const frames: AudioFrame[] = [];
    let seconds = 0;
    return {
      hear: (speech) => {
        if (seconds > MAX_TURN_SECONDS || speech.samples.length === 0) return;
        seconds += speech.samples.length / speech.sampleRate;
        frames.push(frameOf(speech));
      },
      end: async () => {
        if (frames.length === 0) return "";
        const event = await this.plugin.recognize(frames, AbortSignal.timeout(this.timeoutMs));
        return textOf([event]);
      },
    };
  }

  private streamedTurn(): TranscriberTurn {
    const stream = this.plugin.stream({ connOptions: { ...ONE_ATTEMPT, timeoutMs: this.timeoutMs } });
    this.lastError = undefined;
    const events: stt.SpeechEvent[] = [];
    const read = (async () => {
      for await (const event of stream) events.push(event);
    })();
    let seconds = 0;
    return {
      hear: (speech) => {
        if (seconds > MAX_TURN_SECONDS || speech.samples.length === 0) return;
        seconds += speech.samples.length / speech.sampleRate;
        stream.pushFrame(frameOf(speech));
      },
      end: async () => {
        if (seconds === 0) {
          stream.close();
          return "";
        }
        // The plugin's stream connects only if its input is still open when its task starts, on a timer
        // of 0 ms set when it was made (the framework's startSoon): a turn ended before that timer (a
        // test's, all at once) would never be sent. A timer of ours fires after it, its task's first
        // steps (microtasks) done.
        await new Promise((resolve) => setTimeout(resolve, 0));
        // Finalize (what is left of the turn is transcribed at once), then CloseStream. Deepgram has most
        // often sent the turn's final already, while the VAD waited out the quiet that ends it; the plugin
        // reads only the first message that comes after the close, which is the answer to the Finalize.
        stream.flush();
        stream.endInput();
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the speech-to-text gave no words within ${this.timeoutMs} ms`)), this.timeoutMs);
        });
        try {
          await Promise.race([read, timedOut]);
        } finally {
          clearTimeout(timer);
          stream.close();
        }
        if (this.lastError !== undefined) throw this.lastError;
        return textOf(events);
      },
    };
  }
}

/**
 * A frame of its own samples: the plugins send a frame's `data.buffer` whole (Deepgram's), so a view into
 * a larger buffer (the session's frames are cut into channels and turns) would send all of it.
 */
function frameOf(speech: Speech): AudioFrame {
  const { samples } = speech;
  const own = samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength ? samples : samples.slice();
  return new AudioFrame(own, speech.sampleRate, 1, own.length);
}

/** The words of a turn's final transcripts, in order; interim ones are the provider's guesses on the way. */
function textOf(events: stt.SpeechEvent[]): string {
  return events
    .filter((event) => event.type === stt.SpeechEventType.FINAL_TRANSCRIPT)
    .map((event) => event.alternatives?.[0]?.text.trim() ?? "")
    .filter((text) => text !== "")
    .join(" ");
}
