import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { concatBytes, oggOpusFile, oggPage } from "./ogg.fixture.js";
import { MAX_PAGE_BYTES, oggOpusDurationMs, readOggOpusDurationMs } from "./ogg-duration.js";

/** As readOggOpusDurationMs reads a file: its first and last MAX_PAGE_BYTES. */
const duration = (file: Uint8Array) =>
  oggOpusDurationMs(file.subarray(0, MAX_PAGE_BYTES), file.subarray(Math.max(0, file.length - MAX_PAGE_BYTES)));

describe("oggOpusDurationMs", () => {
  it("is the last page's granule less the pre-skip, at 48 kHz", () => {
    expect(duration(oggOpusFile(312, [48_312n, 96_312n, 144_312n]))).toBe(3_000);
    expect(duration(oggOpusFile(312, [10_000n]))).toBe(202);
  });

  it("finds the last page of a file longer than it reads, whatever the bytes inside look like", () => {
    const granules = Array.from({ length: 400 }, (_, i) => BigInt((i + 1) * 48_000 + 3_840));
    // Audio bodies full of "O" (the capture pattern's first byte), and pages larger than 255 bytes of lacing.
    const file = oggOpusFile(3_840, granules, 600);
    expect(file.length).toBeGreaterThan(2 * MAX_PAGE_BYTES);
    expect(duration(file)).toBe(400_000);
  });

  it("is undefined for a file cut off mid-page, an empty one, or one that is not Ogg/Opus", () => {
    const file = oggOpusFile(312, [48_312n, 96_312n]);
    expect(duration(file.subarray(0, file.length - 5))).toBeUndefined();
    expect(duration(new Uint8Array(0))).toBeUndefined();
    expect(duration(new TextEncoder().encode("RIFF....WAVEfmt "))).toBeUndefined();
    const vorbis = concatBytes(
      oggPage(0n, [new TextEncoder().encode("\u0001vorbis-header-bytes")]),
      oggPage(96_000n, [new Uint8Array(10)]),
    );
    expect(duration(vorbis)).toBeUndefined();
  });

  it("is undefined for a stream with no audio yet (a granule within the pre-skip, or none)", () => {
    expect(duration(oggOpusFile(312, []))).toBeUndefined();
    expect(duration(oggOpusFile(312, [0xffff_ffff_ffff_ffffn]))).toBeUndefined();
  });

  it("reads only pages of the stream the OpusHead began", () => {
    const file = concatBytes(oggOpusFile(312, [48_312n]), oggPage(960_000n, [new Uint8Array(20)], { serial: 99 }));
    expect(duration(file)).toBeUndefined();
  });
});

describe("readOggOpusDurationMs", () => {
  const dir = mkdtemp(join(tmpdir(), "dhs-ogg-"));
  afterAll(async () => rm(await dir, { recursive: true, force: true }));

  it("reads a file's duration, and nothing from a missing or empty one", async () => {
    const file = join(await dir, "audio.ogg");
    await writeFile(file, oggOpusFile(312, [48_312n, 72_312n]));
    expect(await readOggOpusDurationMs(file)).toBe(1_500);
    await writeFile(file, "");
    expect(await readOggOpusDurationMs(file)).toBeUndefined();
    expect(await readOggOpusDurationMs(join(await dir, "none.ogg"))).toBeUndefined();
  });
});
