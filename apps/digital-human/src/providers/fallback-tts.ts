/**
 * A provider's voice with the offline voice behind it, sentence by sentence (the conversation's
 * StreamAdapter asks for one sentence at a time): a sentence the provider refuses, does not start within
 * the bound, goes quiet in, or breaks off, is said again whole in the offline voice, and so is every
 * sentence after it for the next half minute, the rest of the reply included. The participant always
 * hears the answer; the failure is logged and counted (`onFallback`), once per outage.
 *
 * Not the framework's tts.FallbackAdapter: its chunked path cannot see a provider failing after its
 * first audio (the framework's ChunkedStream then ends its output as if done, reporting the error only as
 * an `error` event of the TTS), so a reply broken midway would go quiet; and it probes a failed provider
 * by synthesizing a test sentence on it every second, which a paid provider bills. Here the provider is
 * simply tried again with the first sentence after the pause.
 */
import { APIConnectionError, type APIConnectOptions, tts } from "@livekit/agents";
import { type AudioFrame, AudioResampler } from "@livekit/rtc-node";
import { quietly } from "../conversation/framework-internals.js";

/** How long the offline voice stands in after a failure before the provider is tried again. */
export const PROVIDER_PAUSE_MS = 30_000;

export interface FallbackOptions {
  /** The longest wait for the provider's first audio of a sentence, or between two pieces of it. */
  timeoutMs: number;
  pauseMs?: number;
  /** A failure that put the offline voice in (not called again until the provider has spoken since). */
  onFallback(why: string): void;
  now?: () => number;
}

export class FallbackTTS extends tts.TTS {
  label = "dhs.FallbackTTS";
  private downUntil = 0;
  private reported = false;
  /** The sentences being spoken by the provider now: an `error` the provider reports fails them. */
  readonly speaking = new Set<{ fail(error: unknown): void }>();

  constructor(
    readonly primary: tts.TTS,
    readonly offline: tts.TTS,
    sampleRate: number,
    readonly options: FallbackOptions,
  ) {
    super(sampleRate, 1, { streaming: false });
    primary.on("error", (event) => {
      for (const sentence of this.speaking) sentence.fail(event.error);
    });
    // The offline voice's own failures are the conversation's (the framework's error event), not ours.
    offline.on("error", (event) => this.emit("error", event));
  }

  get providerUp(): boolean {
    return (this.options.now ?? Date.now)() >= this.downUntil;
  }

  providerFailed(why: string): void {
    this.downUntil = (this.options.now ?? Date.now)() + (this.options.pauseMs ?? PROVIDER_PAUSE_MS);
    // The reply's later sentences, asked of the provider already, are said offline at once rather than
    // each waiting for its own refusal or timeout.
    for (const sentence of this.speaking) sentence.fail(`an earlier sentence failed: ${why}`);
    if (this.reported) return;
    this.reported = true;
    this.options.onFallback(why);
  }

  providerSpoke(): void {
    this.reported = false;
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return new FallbackChunkedStream(text, this, connOptions, abortSignal);
  }

  stream(): tts.SynthesizeStream {
    throw new Error("FallbackTTS speaks whole sentences: the conversation wraps it in the framework's StreamAdapter");
  }

  override async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.offline.close()]);
  }
}

class FallbackChunkedStream extends tts.ChunkedStream {
  label = "dhs.FallbackChunkedStream";

  constructor(
    text: string,
    private readonly owner: FallbackTTS,
    connOptions: APIConnectOptions | undefined,
    abortSignal: AbortSignal | undefined,
  ) {
    super(text, owner, connOptions, abortSignal);
  }

  protected async run(): Promise<void> {
    if (this.owner.providerUp) {
      const failure = await this.relay(this.owner.primary, true);
      if (failure === undefined || this.abortSignal.aborted) return;
      this.owner.providerFailed(failure);
    }
    const failure = await this.relay(this.owner.offline, false);
    if (failure !== undefined && !this.abortSignal.aborted)
      throw new APIConnectionError({ message: `the offline voice failed: ${failure}` });
  }

  /** Plays `voice`'s sentence into this stream at the owner's rate; why it failed, or undefined. */
  private async relay(voice: tts.TTS, bounded: boolean): Promise<string | undefined> {
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    this.abortSignal.addEventListener("abort", stop, { once: true });
    let failure: string | undefined;
    const sentence = {
      fail: (error: unknown) => {
        failure ??= String(error);
        attempt.abort();
      },
    };
    if (bounded) this.owner.speaking.add(sentence);
    const inner = sentenceOf(
      voice,
      this.inputText,
      { maxRetry: 0, retryIntervalMs: 0, timeoutMs: this.owner.options.timeoutMs },
      attempt.signal,
    );
    const resampler =
      voice.sampleRate === this.owner.sampleRate ? undefined : new AudioResampler(voice.sampleRate, this.owner.sampleRate, 1);
    let watchdog: NodeJS.Timeout | undefined;
    const watch = () => {
      clearTimeout(watchdog);
      if (bounded)
        watchdog = setTimeout(() => sentence.fail(`no audio for ${this.owner.options.timeoutMs} ms`), this.owner.options.timeoutMs);
    };
    let heard = false;
    const requestId = crypto.randomUUID();
    const put = (frame: AudioFrame) => this.queue.put({ requestId, segmentId: requestId, frame, final: false });
    try {
      watch();
      for await (const audio of abortable(inner, attempt.signal)) {
        watch();
        heard = true;
        for (const frame of resampler ? resampler.push(audio.frame) : [audio.frame]) put(frame);
      }
      for (const frame of resampler?.flush() ?? []) put(frame);
    } catch (error) {
      failure ??= String(error);
    } finally {
      clearTimeout(watchdog);
      inner.close();
      resampler?.close();
      this.owner.speaking.delete(sentence);
      this.abortSignal.removeEventListener("abort", stop);
    }
    if (this.abortSignal.aborted) return undefined;
    if (failure === undefined && !heard) failure = "the provider answered no audio";
    if (failure === undefined && bounded) this.owner.providerSpoke();
    return failure;
  }
}

/**
 * The sentence's audio from `voice`: on its streaming connection where it has one (ElevenLabs' and
 * Deepgram's websockets, kept open between sentences; Deepgram's one-shot request also ignores a
 * `baseUrl`'s port), else one request (OpenAI's speech endpoint, the offline voice).
 */
function sentenceOf(
  voice: tts.TTS,
  text: string,
  connOptions: APIConnectOptions,
  signal: AbortSignal,
): { close(): void } & AsyncIterable<tts.SynthesizedAudio> {
  if (!voice.capabilities.streaming) return quietly(voice.synthesize(text, connOptions, signal));
  const stream = voice.stream({ connOptions });
  signal.addEventListener("abort", () => stream.close(), { once: true });
  stream.pushText(text);
  stream.flush();
  stream.endInput();
  return {
    close: () => stream.close(),
    async *[Symbol.asyncIterator]() {
      for await (const audio of stream) if (audio !== tts.SynthesizeStream.END_OF_STREAM) yield audio;
    },
  };
}

/** The stream's audio until `signal` aborts: a provider that hangs leaves its iterator pending forever. */
async function* abortable<T>(stream: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = stream[Symbol.asyncIterator]();
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new Error("aborted"));
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
  aborted.catch(() => undefined);
  while (true) {
    const next = await Promise.race([iterator.next(), aborted]);
    if (next.done) return;
    yield next.value;
  }
}
