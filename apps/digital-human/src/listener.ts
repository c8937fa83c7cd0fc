/**
 * What the agent asks of its ears: follow a participant's audio and say when they start and stop
 * speaking. A team that brings speech recognition implements this (and gets the words too).
 */
import type { AudioFrame } from "@livekit/rtc-node";

export interface ListenerEvents {
  speechStarted(): void;
  /** They stopped, after speaking for `durationS` seconds. */
  speechEnded(durationS: number): void;
}

export interface Listener {
  /** Follows the audio until it ends or the returned function is called. */
  listen(audio: AsyncIterable<AudioFrame>, events: ListenerEvents): () => void;
}
