import { describe, expect, it } from "vitest";
import { encodeWav, parseWav, pcmBytes, pcmSamples, resample, wavHeader } from "./wav.js";

const ramp = Int16Array.from({ length: 480 }, (_, i) => ((i * 137) % 65536) - 32768);

/** A WAV of raw chunks: `[id, body]` pairs after the RIFF/WAVE header, each padded to an even size. */
function riff(chunks: [string, Buffer][]): Buffer {
  const parts = chunks.flatMap(([id, body]) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, "latin1");
    head.writeUInt32LE(body.length, 4);
    return [head, body, Buffer.alloc(body.length % 2)];
  });
  const payload = Buffer.concat(parts);
  const head = Buffer.alloc(12);
  head.write("RIFF", 0, "ascii");
  head.writeUInt32LE(4 + payload.length, 4);
  head.write("WAVE", 8, "ascii");
  return Buffer.concat([head, payload]);
}

function fmt({ tag = 1, channels = 1, rate = 16_000, bits = 16, size = 16 } = {}): Buffer {
  const body = Buffer.alloc(size);
  body.writeUInt16LE(tag, 0);
  body.writeUInt16LE(channels, 2);
  body.writeUInt32LE(rate, 4);
  body.writeUInt32LE(((rate * channels * bits) / 8) % 2 ** 32, 8);
  body.writeUInt16LE((channels * bits) / 8, 12);
  body.writeUInt16LE(bits, 14);
  return body;
}

describe("encodeWav and parseWav", () => {
  it("round-trips mono 16-bit speech, its rate and every sample (the extremes included)", () => {
    const samples = Int16Array.from([...ramp, 32767, -32768, 0]);
    const wav = encodeWav({ samples, sampleRate: 22_050 });
    expect(wav.length).toBe(44 + samples.length * 2);
    const back = parseWav(wav);
    expect(back.sampleRate).toBe(22_050);
    expect([...back.samples]).toEqual([...samples]);
  });

  it("reads a WAV whose header a stream cannot know the size of, and one in a Uint8Array view off a larger buffer", () => {
    const wav = Buffer.concat([wavHeader(0xffffffff, 24_000), pcmBytes(ramp)]);
    expect([...parseWav(wav).samples]).toEqual([...ramp]);
    const larger = new Uint8Array(wav.length + 10);
    larger.set(wav, 5);
    expect(parseWav(larger.subarray(5, 5 + wav.length)).sampleRate).toBe(24_000);
  });

  it("skips the chunks it does not read (LIST, an odd-sized one with its pad byte) and takes extensible PCM", () => {
    const extensible = fmt({ tag: 0xfffe, size: 40 });
    extensible.writeUInt16LE(1, 24); // the sub-format GUID's first word: PCM
    const wav = riff([
      ["LIST", Buffer.from("INFOISFT")],
      ["odd ", Buffer.from([1, 2, 3])],
      ["fmt ", extensible],
      ["data", pcmBytes(ramp)],
    ]);
    expect([...parseWav(wav).samples]).toEqual([...ramp]);
  });

  it("averages stereo to mono", () => {
    const stereo = Int16Array.from([1000, 3000, -2000, -4000, 32767, 32767]);
    const wav = riff([
      ["fmt ", fmt({ channels: 2, rate: 8000 })],
      ["data", pcmBytes(stereo)],
    ]);
    expect(parseWav(wav)).toEqual({ samples: Int16Array.from([2000, -3000, 32767]), sampleRate: 8000 });
  });

  it.each([
    ["nothing", Buffer.alloc(0), /no RIFF\/WAVE header/],
    ["another RIFF type", Buffer.from("RIFF\0\0\0\0AVI "), /no RIFF\/WAVE header/],
    ["no chunks at all", riff([]), /without a fmt chunk/],
    ["data before fmt", riff([["data", pcmBytes(ramp)]]), /data comes before its fmt/],
    ["fmt and no data", riff([["fmt ", fmt()]]), /without a data chunk/],
    ["a short fmt chunk", riff([["fmt ", Buffer.alloc(10)]]), /fmt chunk is 10 bytes/],
    ["IEEE float", riff([["fmt ", fmt({ tag: 3, bits: 32 })]]), /format 3, not PCM/],
    ["8-bit samples", riff([["fmt ", fmt({ bits: 8 })]]), /8-bit samples, not 16-bit/],
    ["no channels", riff([["fmt ", fmt({ channels: 0 })]]), /0 channels/],
    ["an absurd rate", riff([["fmt ", fmt({ rate: 4_000_000_000 })]]), /4000000000 Hz/],
    ["a zero rate", riff([["fmt ", fmt({ rate: 0 })]]), /at 0 Hz/],
  ])("refuses %s with a clear Error", (_name, wav, message) => {
    expect(() => parseWav(wav)).toThrow(message);
  });

  it("refuses a data chunk that says more than is there, and a chunk whose size runs past the end", () => {
    const cut = encodeWav({ samples: ramp, sampleRate: 16_000 }).subarray(0, 44 + 100);
    expect(() => parseWav(cut)).toThrow(/cut short: its data chunk says 960 bytes, 100 are there/);
    const runaway = Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE"), Buffer.from("JUNK"), Buffer.from([0xf0, 0xff, 0xff, 0x7f])]);
    expect(() => parseWav(runaway)).toThrow(/cut short in its "JUNK" chunk/);
  });

  it("stops a crafted walk of endless empty chunks, and names a binary chunk id printably", () => {
    const many = riff(Array.from({ length: 100 }, () => ["junk", Buffer.alloc(0)] as [string, Buffer]));
    expect(() => parseWav(many)).toThrow(/more than 64 chunks/);
    const binary = Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE"), Buffer.from([0, 1, 2, 3, 9, 0, 0, 0])]);
    expect(() => parseWav(binary)).toThrow(/"\?\?\?\?" chunk/);
  });

  it("drops a trailing partial sample or frame", () => {
    expect([...pcmSamples(Buffer.from([1, 0, 2]))]).toEqual([1]);
    expect([...pcmSamples(Buffer.from([2, 0, 4, 0, 9]), 2)]).toEqual([3]);
  });
});

describe("resample", () => {
  it("keeps the samples at the same rate and scales the length by the ratio otherwise", () => {
    expect(resample(ramp, 16_000, 16_000)).toBe(ramp);
    expect(resample(ramp, 16_000, 24_000).length).toBe(720);
    expect(resample(ramp, 48_000, 16_000).length).toBe(160);
  });

  it("interpolates linearly between neighbours", () => {
    expect([...resample(Int16Array.from([0, 100, 200, 300]), 2, 4)]).toEqual([0, 50, 100, 150, 200, 250, 300, 300]);
    expect([...resample(Int16Array.from([0, 100, 200, 300]), 4, 2)]).toEqual([0, 200]);
  });

  it("refuses a rate that is not positive", () => {
    expect(() => resample(ramp, 0, 16_000)).toThrow(/0 Hz/);
  });
});
