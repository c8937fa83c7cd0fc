/**
 * The audio the TTS stand-ins send: an engine's speech at the rate the request asked for, as the
 * little-endian 16-bit PCM bytes providers put on the wire, cut in the chunks they stream. Kept apart from
 * the servers so both (ElevenLabs, Deepgram) cut and time audio alike; the bytes and the resampling are
 * wav.ts's, as the OpenAI stand-in's are.
 */
import type { Speech } from "./speech-engines.js";
import { pcmBytes, resample } from "./wav.js";

/** How much audio one streamed chunk holds: the order of what the providers send (tenths of a second). */
export const CHUNK_MS = 200;

/** `speech` at `rate` (wav.ts's resampling), as the little-endian bytes the providers send. */
export function pcmAt(speech: Speech, rate: number): Buffer {
  return pcmBytes(resample(speech.samples, speech.sampleRate, rate));
}

/** `pcm` in chunks of CHUNK_MS at `rate` (at least one, so an empty answer still says "done" in order). */
export function pcmChunks(pcm: Buffer, rate: number): Buffer[] {
  const size = Math.max(2, Math.round((rate * CHUNK_MS) / 1000) * 2);
  const chunks: Buffer[] = [];
  for (let at = 0; at < pcm.length; at += size) chunks.push(pcm.subarray(at, at + size));
  return chunks.length > 0 ? chunks : [Buffer.alloc(0)];
}

/** Milliseconds of `bytes` of mono 16-bit PCM at `rate`. */
export function durationMs(bytes: number, rate: number): number {
  return (bytes / 2 / rate) * 1000;
}
