import { describe, expect, it } from "vitest";
import { wavFile } from "./wav-file.js";

describe("wavFile", () => {
  it("writes a 16-bit mono PCM header with the rate and length, then the samples little-endian", () => {
    const samples = Int16Array.from({ length: 1600 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));
    const header = wavFile(samples, 16_000);
    expect(header.toString("ascii", 0, 4)).toBe("RIFF");
    expect(header.readUInt32LE(24)).toBe(16_000);
    expect(header.readUInt16LE(22)).toBe(1);
    expect(header.readUInt16LE(34)).toBe(16);
    expect(header.readUInt32LE(40)).toBe(samples.length * 2);
    expect(header.readInt16LE(44 + 2 * 7)).toBe(samples[7]);
  });
});
