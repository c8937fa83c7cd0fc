/**
 * WAV in and out for the speech stand-ins: what a plugin uploads (OpenAI's transcriptions, Deepgram's
 * prerecorded listen) is parsed into mono 16-bit speech for the engines, and what an engine speaks is
 * encoded back. The bytes come from the client under test, so the parser trusts nothing: every offset is
 * checked against the buffer, the chunk walk is bounded, and anything but 16-bit PCM is refused by name.
 */
import type { Speech } from "./speech-engines.js";

const PCM = 1;
/** WAVE_FORMAT_EXTENSIBLE: PCM all the same when its sub-format GUID starts with 1. */
const EXTENSIBLE = 0xfffe;
/** More chunks than any real file has (fmt, data, LIST, fact, ...): past this it is a crafted walk. */
const MAX_CHUNKS = 64;
/** Streaming writers (ffmpeg to a pipe) cannot know the data's size and put one of these. */
const UNKNOWN_SIZES = new Set([0, 0xffffffff]);

/** A 16-bit mono PCM WAV file of `speech`. */
export function encodeWav(speech: Speech): Buffer {
  return Buffer.concat([wavHeader(speech.samples.length * 2, speech.sampleRate), pcmBytes(speech.samples)]);
}

/** The 44 bytes before `dataBytes` of 16-bit mono PCM at `sampleRate`: a WAV that can be streamed after it. */
export function wavHeader(dataBytes: number, sampleRate: number): Buffer {
  const out = Buffer.alloc(44);
  out.write("RIFF", 0, "ascii");
  // A streamed WAV of unknown length says 0xFFFFFFFF in both sizes.
  out.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  out.write("WAVE", 8, "ascii");
  out.write("fmt ", 12, "ascii");
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(PCM, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36, "ascii");
  out.writeUInt32LE(dataBytes, 40);
  return out;
}

/** Little-endian bytes of 16-bit samples (what OpenAI's `pcm` and a WAV's data carry). */
export function pcmBytes(samples: Int16Array): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i] as number, i * 2);
  return out;
}

/** Samples of little-endian 16-bit PCM with `channels` interleaved, averaged to mono; a trailing partial frame is dropped. */
export function pcmSamples(bytes: Uint8Array, channels = 1): Int16Array {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const frames = Math.floor(view.length / (2 * channels));
  const out = new Int16Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += view.readInt16LE((f * channels + c) * 2);
    out[f] = Math.round(sum / channels);
  }
  return out;
}

/** The speech in a 16-bit PCM WAV (mono, or several channels averaged to mono, any rate); a clear Error for anything else. */
export function parseWav(wav: Uint8Array): Speech {
  const bytes = Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength);
  if (bytes.length < 12 || bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE") {
    throw new Error("not a WAV file: no RIFF/WAVE header");
  }
  let format: { channels: number; sampleRate: number } | undefined;
  let at = 12;
  for (let chunk = 0; chunk < MAX_CHUNKS; chunk++) {
    if (at + 8 > bytes.length) throw new Error(format ? "a WAV without a data chunk" : "a WAV without a fmt chunk");
    const id = bytes.toString("ascii", at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === "data") {
      if (!format) throw new Error("a WAV whose data comes before its fmt chunk");
      const end = UNKNOWN_SIZES.has(size) ? bytes.length : body + size;
      if (end > bytes.length) throw new Error(`a WAV cut short: its data chunk says ${size} bytes, ${bytes.length - body} are there`);
      return { samples: pcmSamples(bytes.subarray(body, end), format.channels), sampleRate: format.sampleRate };
    }
    if (body + size > bytes.length) throw new Error(`a WAV cut short in its "${printable(id)}" chunk`);
    if (id === "fmt ") format = readFormat(bytes.subarray(body, body + size));
    // Chunks are word-aligned: an odd size is followed by a pad byte.
    at = body + size + (size % 2);
  }
  throw new Error(`a WAV of more than ${MAX_CHUNKS} chunks`);
}

function readFormat(fmt: Buffer): { channels: number; sampleRate: number } {
  if (fmt.length < 16) throw new Error(`a WAV whose fmt chunk is ${fmt.length} bytes, under 16`);
  const tag = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const sampleRate = fmt.readUInt32LE(4);
  const bits = fmt.readUInt16LE(14);
  const pcm = tag === PCM || (tag === EXTENSIBLE && fmt.length >= 26 && fmt.readUInt16LE(24) === PCM);
  if (!pcm) throw new Error(`a WAV of format ${tag}, not PCM`);
  if (bits !== 16) throw new Error(`a WAV of ${bits}-bit samples, not 16-bit`);
  if (channels < 1 || channels > 8) throw new Error(`a WAV of ${channels} channels (1 to 8 are read)`);
  if (sampleRate < 1000 || sampleRate > 384_000) throw new Error(`a WAV at ${sampleRate} Hz (1 kHz to 384 kHz are read)`);
  return { channels, sampleRate };
}

function printable(id: string): string {
  return id.replace(/[^\x20-\x7e]/g, "?");
}

/** Linear interpolation from one rate to another: plenty for synthesized speech between 8 and 48 kHz. */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return samples;
  if (!(from > 0 && to > 0)) throw new Error(`cannot resample from ${from} Hz to ${to} Hz`);
  const out = new Int16Array(Math.floor((samples.length * to) / from));
  const step = from / to;
  for (let i = 0; i < out.length; i++) {
    const at = i * step;
    const j = Math.floor(at);
    const a = samples[j] ?? 0;
    const b = samples[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (at - j));
  }
  return out;
}
