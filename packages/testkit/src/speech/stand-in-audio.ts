/**
 * The audio the TTS stand-ins send: an engine's speech at the rate the request asked for, as the
 * little-endian 16-bit PCM bytes providers put on the wire, cut in the chunks they stream. Kept apart from
 * the servers so both (ElevenLabs, Deepgram) cut and time audio alike, and free of the testkit's WAV
 * module, which another stand-in owns.
 */
import type { Speech } from "./speech-engines.js";

/** How much audio one streamed chunk holds: the order of what the providers send (tenths of a second). */
export const CHUNK_MS = 200;

/** `speech` at `rate`, linearly interpolated: enough for a recognizer to hear the words again. */
export function pcmAt(speech: Speech, rate: number): Buffer {
  const { samples, sampleRate } = speech;
  const length = sampleRate === rate ? samples.length : Math.floor((samples.length * rate) / sampleRate);
  const out = Buffer.alloc(length * 2);
  for (let i = 0; i < length; i++) {
    const at = (i * sampleRate) / rate;
    const before = Math.floor(at);
    const after = Math.min(before + 1, samples.length - 1);
    const [a, b] = [samples[before] ?? 0, samples[after] ?? 0];
    const value = a + (b - a) * (at - before);
    out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(value))), i * 2);
  }
  return out;
}

/** `pcm` in chunks of CHUNK_MS at `rate` (at least one, so an empty answer still says "done" in order). */
export function pcmChunks(pcm: Buffer, rate: number): Buffer[] {
  const size = Math.max(2, Math.round((rate * CHUNK_MS) / 1000) * 2);
  const chunks: Buffer[] = [];
  for (let at = 0; at < pcm.length; at += size) chunks.push(pcm.subarray(at, at + size));
  return chunks.length > 0 ? chunks : [Buffer.alloc(0)];
}

/** A canonical 44-byte WAV header for `bytes` of mono 16-bit PCM at `rate` (Deepgram's default container). */
export function wavHeader(bytes: number, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + bytes, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(bytes, 40);
  return header;
}

/** Milliseconds of `bytes` of mono 16-bit PCM at `rate`. */
export function durationMs(bytes: number, rate: number): number {
  return (bytes / 2 / rate) * 1000;
}
