/**
 * What the agent asks of its ears: follow a participant's audio and say when they start and stop
 * speaking. A team that brings speech recognition implements this (and gets the words too).
 */
import type { AudioFrame } from "@livekit/rtc-node";
import type { Speech } from "./voice.js";

export interface ListenerEvents {
  speechStarted(): void;
  /** They stopped, after speaking for `durationS` seconds; `speech` is what was heard, for a Transcriber. */
  speechEnded(durationS: number, speech: Speech): void;
}

export interface Listener {
  /** Follows the audio until it ends or the returned function is called. */
  listen(audio: AsyncIterable<AudioFrame>, events: ListenerEvents): () => void;
}
