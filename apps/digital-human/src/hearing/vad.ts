/**
 * The session's VAD: Silero, through @livekit/agents-plugin-silero (its model ships inside the npm package
 * and runs on the CPU with onnxruntime-node, nothing downloaded at run time). It hears only what the
 * loudness gate lets through (participant-audio.ts).
 */
import type { VAD } from "@livekit/agents";
import * as silero from "@livekit/agents-plugin-silero";

/** Loads the model (about 100 ms); a job process does it while it waits for a job. */
export async function loadVad(): Promise<VAD> {
  // Milliseconds. A pause of 600 ms ends a turn: long enough not to answer between words.
  return silero.VAD.load({ minSilenceDuration: 600, minSpeechDuration: 100 });
}
